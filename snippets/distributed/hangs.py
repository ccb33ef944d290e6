"""Debugging a hang: timeouts, monitored_barrier, and TORCH_DISTRIBUTED_DEBUG=DETAIL."""

from snippets.distributed.ranks import dist, fork, run_ranks, show, timedelta, torch

# --8<-- [start:timeout]
rank0_gave_up = fork.Event()


def skips_a_collective(rank, world_size):
    if rank == 1:  # rank 1 never calls all_reduce (a branch on rank, an early return, ...)
        rank0_gave_up.wait(timeout=30)  # but stays alive, as a rank stuck elsewhere would
        return "never called all_reduce"
    try:
        dist.all_reduce(torch.ones(1))
    finally:
        rank0_gave_up.set()


show(run_ranks(skips_a_collective, timeout=timedelta(seconds=2)))
print("default timeout of a process group:", dist.constants.default_pg_timeout)
# --8<-- [end:timeout]

# --8<-- [start:monitored_barrier]
def only_rank0_arrives(rank, world_size, reported, wait_all_ranks):
    if rank != 0:
        reported.wait(timeout=30)  # stay alive until rank 0 has its answer
        return "did not reach the barrier"
    try:
        dist.monitored_barrier(timeout=timedelta(seconds=1), wait_all_ranks=wait_all_ranks)
    finally:
        reported.set()


for world_size, wait_all in ((2, False), (3, True)):
    reported = fork.Event()  # made before the ranks are forked, so that they share it
    print(f"{world_size} ranks, wait_all_ranks={wait_all}:")
    results = run_ranks(lambda r, w: only_rank0_arrives(r, w, reported, wait_all), world_size)
    show([text.splitlines()[0] for text in results])  # then gloo's error, with the ms left
# --8<-- [end:monitored_barrier]

# --8<-- [start:mismatch]
import re  # noqa: E402

both_failed = fork.Barrier(2)  # a rank that fails stays alive until the other has failed too


def different_order(rank, world_size):
    t = torch.ones(2)
    try:
        if rank == 0:
            dist.all_reduce(t)
            dist.broadcast(t, src=0)
        else:  # the same two calls, in the other order
            dist.broadcast(t, src=0)
            dist.all_reduce(t)
    finally:
        both_failed.wait(timeout=30)
    return "finished"


results = run_ranks(different_order, timeout=[timedelta(seconds=5), timedelta(seconds=2)])
show(re.sub(r"\[127\.0\.0\.1\]:\d+", "[127.0.0.1]:<port>", error) for error in results)
# --8<-- [end:mismatch]

# --8<-- [start:mismatch_detail]
results = run_ranks(different_order, env={"TORCH_DISTRIBUTED_DEBUG": "DETAIL"}, timeout=timedelta(seconds=2))
fingerprint = re.compile(r"(Rank \d) is running collective: CollectiveFingerPrint\((SequenceNumber=\d+), OpType=(\w+)")
for rank, error in enumerate(results):
    print(f"rank {rank}: {error.split(' Rank')[0]}")
    for who, seq, op in fingerprint.findall(error):
        print(f"  {who} runs {op} ({seq})")
    print("  " + " ".join(error.split("Collectives differ in the following aspects:")[1].split()))
# --8<-- [end:mismatch_detail]
