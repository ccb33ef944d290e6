"""DTensor mistakes: a Partial read as reduced, mixed tensors, two meshes, rank data."""

from snippets.distributed.ranks import dist, run_ranks, torch  # noqa: F401

# isort: split

# --8<-- [start:partial_read]
from torch.distributed.device_mesh import init_device_mesh
from torch.distributed.tensor import DTensor, Replicate, Shard, distribute_tensor


def loss_of_sharded(rank, world_size):
    mesh = init_device_mesh("cpu", (world_size,))
    full = torch.arange(8.0).reshape(4, 2)
    loss = distribute_tensor(full, mesh, [Shard(0)]).sum()  # each rank sums its rows
    return [
        f"loss placements {loss.placements}",
        f"loss.item() {loss.item()}, float(loss) {float(loss)}",
        f"loss.to_local() {loss.to_local().item()}",
        f"the real sum {full.sum().item()}",
    ]


for rank, lines in enumerate(run_ranks(loss_of_sharded)):
    print(f"rank {rank}:", *lines, sep="\n  ")
# --8<-- [end:partial_read]


# --8<-- [start:partial_fix]
def reduced(rank, world_size):
    mesh = init_device_mesh("cpu", (world_size,))
    loss = distribute_tensor(torch.arange(8.0).reshape(4, 2), mesh, [Shard(0)]).sum()
    whole = loss.full_tensor()  # an all-reduce; a plain tensor back
    replicated = loss.redistribute(placements=[Replicate()])  # a DTensor, all-reduced
    return [
        f"loss.full_tensor().item() {whole.item()}",
        f"loss.redistribute(placements=[Replicate()]).item() {replicated.item()}",
    ]


for rank, lines in enumerate(run_ranks(reduced)):
    print(f"rank {rank}:", *lines, sep="\n  ")
# --8<-- [end:partial_fix]


# --8<-- [start:mixed]
from torch.distributed.tensor.experimental import implicit_replication


def mixed(rank, world_size):
    mesh = init_device_mesh("cpu", (world_size,))
    weight = distribute_tensor(torch.ones(4, 2), mesh, [Shard(0)])
    try:
        weight + torch.ones(4, 2)  # a plain tensor: is it a shard, or the whole?
    except RuntimeError as e:
        error = f"{type(e).__name__}: {e}"
    fixed = weight + distribute_tensor(torch.ones(4, 2), mesh, [Replicate()])
    scalar = weight + torch.tensor(2.0)  # one element: taken as replicated
    with implicit_replication():  # every plain tensor taken as the whole, replicated
        whole = weight + torch.ones(4, 2)
        try:
            weight + torch.ones(2, 2)  # this rank's shard: not the whole, so refused
        except RuntimeError as e:
            shard = str(e).splitlines()[0]
    return [
        error,
        f"fixed: {fixed.placements}, with a scalar tensor: {scalar.placements}",
        f"implicit_replication, the whole (4, 2): {whole.placements}",
        f"implicit_replication, a (2, 2) shard: {shard}",
    ]


print(*run_ranks(mixed)[0], sep="\n")
# --8<-- [end:mixed]


# --8<-- [start:meshes]
def two_meshes(rank, world_size):
    first = init_device_mesh("cpu", (world_size,))
    second = init_device_mesh("cpu", (world_size,), mesh_dim_names=("tp",))
    a = distribute_tensor(torch.ones(4, 2), first, [Shard(0)])
    b = distribute_tensor(torch.ones(4, 2), second, [Shard(0)])
    same = first.mesh.tolist() == second.mesh.tolist()
    lines = [f"same ranks {same}, meshes equal {first == second}"]
    try:
        a + b
    except RuntimeError as e:
        lines.append(f"a + b: {type(e).__name__}: {e}")
    for placement in (Shard(0), Replicate()):
        call = f"a.redistribute(second, [{placement}])"
        try:
            moved = a.redistribute(second, [placement])
            lines.append(f"{call}: on {moved.device_mesh}")
        except NotImplementedError as e:
            lines.append(f"{call}: {type(e).__name__}: {e}")
    return lines


print(*run_ranks(two_meshes)[0], sep="\n")
# --8<-- [end:meshes]


# --8<-- [start:per_rank_data]
def per_rank_data(rank, world_size):
    mesh = init_device_mesh("cpu", (world_size,))
    torch.manual_seed(rank)  # the mistake: each rank makes its own, different, weights
    mine = torch.randint(0, 10, (2, 2)).float()
    before = mine.tolist()
    own = distribute_tensor(mine, mesh, [Shard(0)], src_data_rank=None)  # no comms
    sharded = distribute_tensor(mine, mesh, [Shard(0)])  # scattered from rank 0
    replicated = distribute_tensor(mine, mesh, [Replicate()])  # broadcast from rank 0
    return [
        f"mine before         {before}",
        f"Shard(0)            {sharded.to_local().tolist()}",
        f"Replicate()         {replicated.to_local().tolist()}",
        f"mine after          {mine.tolist()}",
        f"src_data_rank=None  {own.to_local().tolist()}  (Shard(0), made first)",
    ]


for rank, lines in enumerate(run_ranks(per_rank_data)):
    print(f"rank {rank}:", *lines, sep="\n  ")
# --8<-- [end:per_rank_data]


# --8<-- [start:uneven_local]
def uneven_local(rank, world_size):
    mesh = init_device_mesh("cpu", (world_size,))
    local = torch.full((3 if rank == 0 else 2, 2), float(rank))  # 5 rows: 3 and 2
    guessed = DTensor.from_local(local, mesh, [Shard(0)])  # assumes even shards
    given = DTensor.from_local(local, mesh, [Shard(0)], shape=(5, 2), stride=(2, 1))
    shapes = f"guessed {tuple(guessed.shape)}, given {tuple(given.shape)}"
    return [
        f"local {tuple(local.shape)}, global shape {shapes}",
        f"given.full_tensor()[:, 0] {given.full_tensor()[:, 0].tolist()}",
    ]


for rank, lines in enumerate(run_ranks(uneven_local)):
    print(f"rank {rank}:", *lines, sep="\n  ")
# --8<-- [end:uneven_local]
