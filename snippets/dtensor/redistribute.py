"""What redistribute sends: the collectives each change of placement issues."""

from snippets.distributed.ranks import dist, run_ranks, torch  # noqa: F401

# isort: split

# --8<-- [start:counts]
from torch.distributed.device_mesh import init_device_mesh
from torch.distributed.tensor import DTensor, Partial, Replicate, Shard
from torch.distributed.tensor import distribute_tensor
from torch.distributed.tensor.debug import CommDebugMode


def comms(mode):
    """CommDebugMode's counts, by the collective's short name."""
    return {op.__name__: n for op, n in mode.get_comm_counts().items()} or "none"


def make(full, mesh, placements):
    if any(p.is_partial() for p in placements):  # Partial: made from local values
        return DTensor.from_local(full, mesh, placements)
    return distribute_tensor(full, mesh, placements)


def changes(rank, world_size):
    mesh = init_device_mesh("cpu", (world_size,))
    full = torch.arange(8.0).reshape(4, 2)
    lines = []
    for src, dst in [
        (Shard(0), Replicate()),
        (Partial(), Replicate()),
        (Partial(), Shard(0)),
        (Replicate(), Shard(0)),
        (Shard(0), Shard(1)),
    ]:
        x = make(full, mesh, [src])
        with CommDebugMode() as mode:
            y = x.redistribute(mesh, [dst])
        shape = tuple(y.to_local().shape)
        lines.append(f"{src} -> {dst}: {comms(mode)}, local shape {shape}")
    return lines


results, logs = run_ranks(changes, logs=True)  # logs: what each rank wrote
print(*results[0], sep="\n")  # rank 1 issues the same collectives
for line in logs[0].splitlines():  # a warning's text, without its time and place
    if "alltoall" in line:
        print("rank 0 logged:", line.split("] ", 1)[1])
# --8<-- [end:counts]


# --8<-- [start:trace]
import re

from torch.utils._debug_mode import DebugMode

with DebugMode():  # its first use imports much of torch (seconds): once here, in the
    pass  # parent, rather than once in every forked rank


def steady(trace):
    """The trace, with each collective's last argument, its group's name, as <group>.

    A group's name is a counter, and where CUDA is available the mesh makes a group of
    its own for gloo: the number differs from machine to machine."""
    return re.sub(r"(_c10d_functional::.*), \w+\)  ->", r"\1, <group>)  ->", trace)


def trace(rank, world_size):
    mesh = init_device_mesh("cpu", (world_size,))
    x = distribute_tensor(torch.arange(8.0).reshape(4, 2), mesh, [Shard(0)])
    p = DTensor.from_local(torch.ones(4, 2), mesh, [Partial()])
    with DebugMode(record_torchfunction=False) as mode:  # each op, with its shapes
        x.redistribute(mesh, [Replicate()])
        p.redistribute(mesh, [Shard(0)])
    return steady(mode.debug_string())


print(run_ranks(trace)[0])
# --8<-- [end:trace]


# --8<-- [start:counts_2d]
import textwrap

CASES_2D = [
    ((Shard(0), Shard(1)), (Replicate(), Replicate())),
    ((Shard(0), Shard(0)), (Replicate(), Replicate())),
    ((Shard(0), Replicate()), (Replicate(), Replicate())),
    ((Partial(), Partial()), (Replicate(), Replicate())),
    ((Partial(), Shard(0)), (Replicate(), Replicate())),
    ((Shard(0), Replicate()), (Replicate(), Shard(0))),
]


def changes_2d(rank, world_size):
    mesh = init_device_mesh("cpu", (2, 2), mesh_dim_names=("dp", "tp"))
    full = torch.arange(16.0).reshape(4, 4)
    counts = {}
    for flattened in (False, True):
        if flattened:  # one more group, over all four ranks, that the mesh knows of
            mesh["dp", "tp"]._flatten()  # private in these releases: named "dp_tp"
        for src, dst in CASES_2D:
            x = make(full, mesh, src)
            with CommDebugMode() as mode:
                x.redistribute(mesh, dst)
            counts.setdefault((src, dst), []).append(comms(mode))
    return counts


def short(placements):
    return ", ".join(map(str, placements))


results, logs = run_ranks(changes_2d, world_size=4, logs=True)
for (src, dst), (alone, flattened) in results[0].items():
    print(f"[{short(src)}] -> [{short(dst)}]: {alone}")
    print("    with dp_tp flattened:", "the same" if flattened == alone else flattened)
for line in logs[0].splitlines():
    if "While redistributing" in line:  # a warning's text, without its time and place
        print(textwrap.fill(f"rank 0 logged: {line.split('] ', 1)[1]}", 88))
# --8<-- [end:counts_2d]


# --8<-- [start:backward]
def backward(rank, world_size):
    mesh = init_device_mesh("cpu", (world_size,))
    w = distribute_tensor(torch.ones(2, 4), mesh, [Shard(1)])  # columns split
    uses = {  # y replicated, used with a replicated factor, then with the sharded w
        "(y * 3).sum()": lambda y: (y * 3).sum(),
        "(y @ w).sum()": lambda y: (y @ w).sum(),
    }
    lines = []
    for name, use in uses.items():
        x = distribute_tensor(torch.ones(4, 2), mesh, [Shard(0)]).requires_grad_()
        with CommDebugMode() as mode:
            y = x.redistribute(mesh, [Replicate()])
            forward = comms(mode)
        arrived = []
        y.register_hook(lambda grad: arrived.append(grad.placements[0]))
        loss = use(y)
        with CommDebugMode() as mode:
            loss.backward()
        lines += [
            f"{name}: forward {forward}, backward {comms(mode)}",
            f"  y.grad {arrived[0]}, x.grad {x.grad.placements} local "
            f"{x.grad.to_local().tolist()}",
        ]
    return lines


for rank, lines in enumerate(run_ranks(backward)):
    print(f"rank {rank}:", *lines, sep="\n  ")
# --8<-- [end:backward]
