"""FSDP2 and DTensor on a CPU device mesh: sharded parameters, gathered around forward."""

from snippets.distributed.ranks import dist, run_ranks, show, torch  # noqa: F401

# isort: split

# --8<-- [start:dtensor]
from torch import nn
from torch.distributed.device_mesh import init_device_mesh
from torch.distributed.fsdp import fully_shard
from torch.distributed.tensor import Replicate, Shard, distribute_tensor


def dtensor(rank, world_size):
    mesh = init_device_mesh("cpu", (world_size,))  # a 1-D mesh over the default gloo group
    full = torch.arange(12.0).reshape(6, 2)  # the same on every rank (seeded data would be too)
    sharded = distribute_tensor(full, mesh, [Shard(0)])
    replicated = distribute_tensor(full, mesh, [Replicate()])
    return [
        f"{type(sharded).__name__} placements {sharded.placements} global shape {tuple(sharded.shape)}",
        f"local shard {sharded.to_local().tolist()}",
        f"replicated local shape {tuple(replicated.to_local().shape)}",
        f"full_tensor() equal to full: {torch.equal(sharded.full_tensor(), full)}",  # an all-gather
    ]


for rank, lines in enumerate(run_ranks(dtensor)):
    print(f"rank {rank}:", *lines, sep="\n  ")
# --8<-- [end:dtensor]


# --8<-- [start:fsdp_shard]
def sharded_model(reshard_after_forward=True):
    mesh = init_device_mesh("cpu", (dist.get_world_size(),))
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(4, 6), nn.ReLU(), nn.Linear(6, 2))
    for layer in (model[0], model[2]):  # each layer its own group: gathered one at a time
        fully_shard(layer, mesh=mesh, reshard_after_forward=reshard_after_forward)
    fully_shard(model, mesh=mesh, reshard_after_forward=reshard_after_forward)
    return model


def describe(rank, world_size):
    model = sharded_model()
    lines = [type(model).__name__]
    for name, p in model.named_parameters():
        lines.append(
            f"{name:8} {type(p).__name__} {p.placements} global {tuple(p.shape)} local {tuple(p.to_local().shape)}"
        )
    opt = torch.optim.Adam(model.parameters())
    model(torch.randn(3, 4)).sum().backward()
    opt.step()  # Adam's state is made like its parameter: a DTensor, sharded the same way
    w = model[0].weight
    local = {"grad": w.grad} | {k: opt.state[w][k] for k in ("exp_avg", "exp_avg_sq")}
    shapes = ", ".join(f"{k} {tuple(v.to_local().shape)}" for k, v in local.items())
    lines.append(f"0.weight after a step, local shapes: {shapes}")
    return lines


print(*run_ranks(describe)[0], sep="\n")
# --8<-- [end:fsdp_shard]


# --8<-- [start:fsdp_hooks]
def lifecycle(rank, world_size, reshard_after_forward):
    model = sharded_model(reshard_after_forward)
    first = model[0]
    log = []

    def state(moment):
        w = first.weight
        return f"{moment:22} weight is {type(w).__name__} {tuple(w.shape)}"

    # FSDP's pre-forward hook (the all-gather) is prepended, so it runs before our pre hook; its
    # post-forward hook (the reshard) was registered by fully_shard, so it runs before our later one
    first.register_forward_pre_hook(lambda m, args: log.append(state("in forward (pre hook)")))
    first.register_forward_hook(lambda m, args, out: log.append(state("in forward (post hook)")))
    log.append(state("before forward"))
    loss = model(torch.randn(3, 4)).sum()
    log.append(state("after forward"))
    loss.backward()
    log.append(state("after backward"))
    log.append(f"{'':22} grad is {type(first.weight.grad).__name__}, local {tuple(first.weight.grad.to_local().shape)}")
    return log


def both(rank, world_size):
    return {flag: lifecycle(rank, world_size, flag) for flag in (True, False)}


for flag, log in run_ranks(both)[0].items():
    print(f"reshard_after_forward={flag}:", *log, sep="\n")
# --8<-- [end:fsdp_hooks]
