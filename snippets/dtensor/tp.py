"""Tensor parallelism: parallelize_module on a small MLP, and FSDP2 on top of it."""

from snippets.distributed.ranks import dist, run_ranks, torch  # noqa: F401

# isort: split

# --8<-- [start:tp_plan]
from torch import nn
from torch.distributed.device_mesh import init_device_mesh
from torch.distributed.tensor.parallel import ColwiseParallel, RowwiseParallel
from torch.distributed.tensor.parallel import parallelize_module


class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.up = nn.Linear(4, 8)
        self.down = nn.Linear(8, 4)

    def forward(self, x):
        return self.down(torch.relu(self.up(x)))


def tp_model(mesh):
    torch.manual_seed(0)  # the same weights on every rank, before they are split
    model = MLP()
    plan = {"up": ColwiseParallel(), "down": RowwiseParallel()}
    return parallelize_module(model, mesh, plan)


def plan(rank, world_size):
    model = tp_model(init_device_mesh("cpu", (world_size,)))
    lines = []
    for name, p in model.named_parameters():
        shapes = f"global {tuple(p.shape)} local {tuple(p.to_local().shape)}"
        lines.append(f"{name:11} {type(p).__name__} {p.placements} {shapes}")
    return lines


print(*run_ranks(plan)[0], sep="\n")
# --8<-- [end:tp_plan]


from torch.utils._debug_mode import DebugMode  # noqa: E402

with DebugMode():  # as on the page: its first use imports much, before ranks fork
    pass

import re  # noqa: E402


def steady(trace):  # as on the page: each collective's group name as <group>
    return re.sub(r"(_c10d_functional::.*), \w+\)  ->", r"\1, <group>)  ->", trace)


# --8<-- [start:tp_trace]
from torch.utils._debug_mode import DebugMode


def forward_trace(rank, world_size):
    model = tp_model(init_device_mesh("cpu", (world_size,)))
    with DebugMode(record_torchfunction=False) as mode:
        model(torch.ones(3, 4))
    keep = ("aten::", "-> output", "redistribute_input", "_c10d_functional::all_reduce")
    lines = []
    for line in steady(mode.debug_string()).splitlines():
        text, depth = line.strip(), len(line) - len(line.lstrip())
        local = depth > 2 and text.startswith("aten::") and "div" not in text
        if text.startswith(keep) and not local:  # DTensor ops and their collectives
            lines.append(line)
    return lines


print(*run_ranks(forward_trace)[0], sep="\n")
# --8<-- [end:tp_trace]


# --8<-- [start:tp_step]
from torch.distributed.tensor.debug import CommDebugMode


def comms(mode):
    return {op.__name__: n for op, n in mode.get_comm_counts().items()} or "none"


def step(rank, world_size):
    model = tp_model(init_device_mesh("cpu", (world_size,)))
    lines = []
    for input_grad in (False, True):  # True: as if a layer before this one needed it
        x = torch.ones(3, 4, requires_grad=input_grad)
        with CommDebugMode() as mode:
            y = model(x)
            forward = comms(mode)
        with CommDebugMode() as mode:
            y.sum().backward()
        backward = comms(mode)
        lines.append(f"x.requires_grad={input_grad!s:5} forward {forward}, "
                     f"backward {backward}")
    grad = model.up.weight.grad
    lines.append(f"output {type(y).__name__} {tuple(y.shape)}; "
                 f"up.weight.grad {type(grad).__name__} {grad.placements}")
    return lines


print(*run_ranks(step)[0], sep="\n")
# --8<-- [end:tp_step]


# --8<-- [start:tp_equal]
def same_as_one_process(rank, world_size):
    torch.manual_seed(0)
    reference = MLP()  # the same seed: the weights tp_model starts from
    model = tp_model(init_device_mesh("cpu", (world_size,)))
    x = torch.randn(3, 4)
    reference(x).sum().backward()
    y = model(x)
    y.sum().backward()
    grad = model.up.weight.grad
    same_grad = torch.allclose(grad.full_tensor(), reference.up.weight.grad)
    return [
        f"output close to the reference's: {torch.allclose(y, reference(x))}",
        f"up.weight.grad local {tuple(grad.to_local().shape)}, "
        f"gathered close to the reference's: {same_grad}",
    ]


for rank, lines in enumerate(run_ranks(same_as_one_process)):
    print(f"rank {rank}:", *lines, sep="\n  ")
# --8<-- [end:tp_equal]


# --8<-- [start:tp_inputs]
def own_batch(rank, world_size):
    torch.manual_seed(0)
    reference = MLP()
    model = tp_model(init_device_mesh("cpu", (world_size,)))
    torch.manual_seed(rank)  # the mistake: each rank of a TP group draws its own batch
    x = torch.randn(3, 4)
    y = model(x)
    return torch.allclose(y, reference(x)), y.tolist()


(close_0, y_0), (close_1, y_1) = run_ranks(own_batch)
print(f"output close to the unsplit model's on its own batch: rank 0 {close_0}, "
      f"rank 1 {close_1}")
print(f"the two ranks' outputs equal: {y_0 == y_1}")
# --8<-- [end:tp_inputs]


# --8<-- [start:fsdp_tp]
from torch.distributed.fsdp import fully_shard
from torch.distributed.tensor import Shard, distribute_tensor


def fsdp_over_tp(rank, world_size):
    mesh = init_device_mesh("cpu", (2, 2), mesh_dim_names=("dp", "tp"))
    model = MLP()
    with torch.no_grad():
        model.up.weight.copy_(torch.arange(8.0).unsqueeze(1).expand(8, 4))  # row i: i
    plan = {"up": ColwiseParallel(), "down": RowwiseParallel()}
    parallelize_module(model, mesh["tp"], plan)  # TP within each row of the mesh
    fully_shard(model, mesh=mesh["dp"])  # FSDP2 across the rows, on top of TP
    lines = [
        f"{name:11} {p.placements} local {tuple(p.to_local().shape)}"
        for name, p in model.named_parameters()
    ]
    rows = model.up.weight.to_local()[:, 0].int().tolist()
    full = model.up.weight.detach().full_tensor()  # rows 0 to 7, gathered
    plain = distribute_tensor(full, mesh, [Shard(0), Shard(0)])
    plain_rows = plain.to_local()[:, 0].int().tolist()
    lines.append(f"rows of up.weight held here: {rows}, by [S(0), S(0)]: {plain_rows}")
    return lines


results = run_ranks(fsdp_over_tp, world_size=4)
print(*results[0][:-1], sep="\n")  # the placements: the same on every rank
for rank, lines in enumerate(results):
    print(f"rank {rank} (dp={rank // 2}, tp={rank % 2}): {lines[-1]}")
# --8<-- [end:fsdp_tp]


# --8<-- [start:fsdp_tp_step]
def fsdp_tp_step(rank, world_size):
    mesh = init_device_mesh("cpu", (2, 2), mesh_dim_names=("dp", "tp"))
    model = tp_model(mesh["tp"])
    fully_shard(model, mesh=mesh["dp"])
    with CommDebugMode() as mode:
        y = model(torch.ones(3, 4))
        forward = comms(mode)
    with CommDebugMode() as mode:
        y.sum().backward()
    return [f"forward {forward}", f"backward {comms(mode)}"]


print(*run_ranks(fsdp_tp_step, world_size=4)[0], sep="\n")
# --8<-- [end:fsdp_tp_step]
