"""Collectives: what each rank sends and what it receives."""

from snippets.distributed.ranks import dist, fork, run_ranks, show, torch


# --8<-- [start:collectives]
def collectives(rank, world_size):
    seen = {}
    t = torch.tensor([rank + 1.0, 10.0 * (rank + 1)])  # rank 0: [1, 10], rank 1: [2, 20]
    dist.all_reduce(t)  # every rank ends with the elementwise sum
    seen["all_reduce"] = t.tolist()
    t = torch.tensor([100.0 + rank])
    dist.broadcast(t, src=1)  # every rank ends with rank 1's tensor
    seen["broadcast(src=1)"] = t.tolist()
    parts = [torch.zeros(1) for _ in range(world_size)]
    dist.all_gather(parts, torch.tensor([rank * 1.0]))  # every rank ends with every rank's tensor
    seen["all_gather"] = [p.item() for p in parts]
    chunks = [torch.tensor([10.0 * rank + i]) for i in range(world_size)]  # chunk i is meant for rank i
    mine = torch.zeros(1)
    dist.reduce_scatter(mine, chunks)  # rank i ends with the sum of every rank's chunk i
    seen["reduce_scatter"] = mine.tolist()
    if rank == 0:
        dist.send(torch.tensor([42.0]), dst=1)  # point to point: only the two ranks named take part
        seen["send"] = "sent 42.0 to rank 1"
    else:
        got = torch.zeros(1)
        dist.recv(got, src=0)
        seen["recv"] = f"got {got.item()} from rank 0"
    return seen


for rank, seen in enumerate(run_ranks(collectives)):
    print(f"rank {rank}:")
    for op, value in seen.items():
        print(f"  {op:17} {value}")
# --8<-- [end:collectives]

# --8<-- [start:async_work]
rank1_may_join = fork.Event()  # rank 1 joins the all_reduce only once rank 0 has looked


def async_all_reduce(rank, world_size):
    t = torch.full((3,), rank + 1.0)
    if rank == 1:
        rank1_may_join.wait(timeout=30)
    work = dist.all_reduce(t, async_op=True)  # returns a Work at once; gloo runs it on its own thread
    seen = [type(work).__name__, f"completed before wait: {work.is_completed()}"]
    if rank == 0:
        rank1_may_join.set()
    work.wait()  # blocks until the result is in t
    seen += [f"completed after wait: {work.is_completed()}", f"t = {t.tolist()}"]
    return seen


show(run_ranks(async_all_reduce)[:1])  # rank 0's view
# --8<-- [end:async_work]

# --8<-- [start:subgroups]
from datetime import timedelta  # noqa: E402


def subgroup(rank, world_size):
    pair = dist.new_group([0, 1])  # every rank calls it, rank 2 too, in the same order
    seen = {"backend per device": dist.get_backend_config()}
    if pair is dist.GroupMember.NON_GROUP_MEMBER:
        where = f"not a member, dist.get_rank(pair) = {dist.get_rank(pair)}"
        seen["new_group([0, 1])"] = where
    else:
        t = torch.tensor([rank + 1.0])
        dist.all_reduce(t, group=pair)  # ranks 0 and 1 only
        where = f"rank {dist.get_rank(pair)} of {dist.get_world_size(pair)}"
        seen["new_group([0, 1])"] = f"{where}, all_reduce: {t.item()}"
    return seen


for rank, seen in enumerate(run_ranks(subgroup, world_size=3)):
    print(f"rank {rank}:")
    for key, value in seen.items():
        print(f"  {key:18} {value}")


def members_only(rank, world_size, **options):
    if rank == 0:  # only the group's member creates it
        dist.new_group([0], timeout=timedelta(seconds=2), **options)
        return "new_group([0]) returned"
    return "did not call new_group"


print("only rank 0 calls new_group([0]):")
show(run_ranks(members_only, timeout=timedelta(seconds=2)))
print("the same with use_local_synchronization=True:")
show(run_ranks(lambda r, w: members_only(r, w, use_local_synchronization=True)))
# --8<-- [end:subgroups]
