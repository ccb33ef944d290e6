"""DeviceMesh on CPU ranks: a 1-D mesh of two ranks and a 2-D mesh of four (gloo)."""

from snippets.distributed.ranks import dist, run_ranks, torch  # noqa: F401

# isort: split

# --8<-- [start:mesh_1d]
from torch.distributed.device_mesh import init_device_mesh


def mesh_1d(rank, world_size):
    mesh = init_device_mesh("cpu", (world_size,))  # over the helper's gloo group
    return [
        repr(mesh),
        f"ndim {mesh.ndim}, size {mesh.size()}, mesh.mesh {mesh.mesh.tolist()}",
        f"get_rank() {mesh.get_rank()}, get_coordinate() {mesh.get_coordinate()}",
        f"its group's ranks {dist.get_process_group_ranks(mesh.get_group())}",
    ]


for rank, lines in enumerate(run_ranks(mesh_1d, world_size=2)):
    print(f"rank {rank}:", *lines, sep="\n  ")
# --8<-- [end:mesh_1d]


# --8<-- [start:no_group]
import os


def without_a_group(rank, world_size):
    dist.destroy_process_group()  # undo the helper's group, as if torchrun started us
    before = dist.is_initialized()
    # what a launcher sets (port 0: the store takes a free one; one rank connects)
    launcher = {"RANK": "0", "WORLD_SIZE": "1", "MASTER_ADDR": "127.0.0.1"}
    os.environ.update(launcher, MASTER_PORT="0")
    init_device_mesh("cpu", (1,))  # finds no default group: calls init_process_group()
    after = f"{dist.is_initialized()}, world size {dist.get_world_size()}"
    return f"default group before: {before}; after init_device_mesh: {after}"


print(run_ranks(without_a_group, world_size=1)[0])
# --8<-- [end:no_group]


# --8<-- [start:mesh_2d]
def mesh_2d(rank, world_size):
    mesh = init_device_mesh("cpu", (2, 2), mesh_dim_names=("dp", "tp"))
    groups = []
    for name in mesh.mesh_dim_names:
        group = mesh.get_group(name)  # this rank's process group along that dimension
        ranks = dist.get_process_group_ranks(group)
        groups.append(f"{name}: {group.group_desc} {ranks}")
    return f"{mesh!r} mesh.mesh {mesh.mesh.tolist()}", mesh.get_coordinate(), groups


results = run_ranks(mesh_2d, world_size=4)  # plain values back, not tensors
print(results[0][0])  # the same on every rank
for rank, (_, coordinate, groups) in enumerate(results):
    print(f"rank {rank}: coordinate {coordinate}, groups", ", ".join(groups))
# --8<-- [end:mesh_2d]


# --8<-- [start:submesh]
def submesh(rank, world_size):
    mesh = init_device_mesh("cpu", (2, 2), mesh_dim_names=("dp", "tp"))
    lines = []
    for name in ("tp", "dp"):
        sub = mesh[name]  # a 1-D mesh: this rank's row (tp) or column (dp)
        local_rank = sub.get_local_rank()
        lines.append(f"mesh[{name!r}] {sub.mesh.tolist()} local rank {local_rank}")
    return ", ".join(lines)


for rank, line in enumerate(run_ranks(submesh, world_size=4)):
    print(f"rank {rank}: {line}")
# --8<-- [end:submesh]
