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


print(*run_ranks(changes)[0], sep="\n")  # rank 1 issues the same collectives
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
def changes_2d(rank, world_size):
    mesh = init_device_mesh("cpu", (2, 2), mesh_dim_names=("dp", "tp"))
    full = torch.arange(16.0).reshape(4, 4)
    lines = []
    for src, dst in [
        ((Shard(0), Shard(1)), (Replicate(), Replicate())),
        ((Shard(0), Replicate()), (Replicate(), Replicate())),
        ((Partial(), Partial()), (Replicate(), Replicate())),
        ((Partial(), Shard(0)), (Replicate(), Replicate())),
        ((Shard(0), Replicate()), (Replicate(), Shard(0))),
    ]:
        x = make(full, mesh, src)
        with CommDebugMode() as mode:
            x.redistribute(mesh, dst)
        lines.append(f"{list(src)} -> {list(dst)}: {comms(mode)}")
    return lines


print(*run_ranks(changes_2d, world_size=4)[0], sep="\n")
# --8<-- [end:counts_2d]


# --8<-- [start:backward]
def backward(rank, world_size):
    mesh = init_device_mesh("cpu", (world_size,))
    x = distribute_tensor(torch.ones(4, 2), mesh, [Shard(0)]).requires_grad_()
    with CommDebugMode() as mode:
        y = x.redistribute(mesh, [Replicate()])
        forward = comms(mode)
    with CommDebugMode() as mode:
        (y * 3).sum().backward()
    return [
        f"forward {forward}; backward {comms(mode)}",
        f"x.grad {x.grad.placements} local {x.grad.to_local().tolist()}",
    ]


for rank, lines in enumerate(run_ranks(backward)):
    print(f"rank {rank}:", *lines, sep="\n  ")
# --8<-- [end:backward]
