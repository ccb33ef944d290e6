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
import re  # noqa: E402

rank0_reported = fork.Event()


def one_rank_missing(rank, world_size):
    if rank == 1:
        rank0_reported.wait(timeout=30)
        return "did not reach the barrier"
    try:
        dist.monitored_barrier(timeout=timedelta(seconds=1))  # gloo only
    finally:
        rank0_reported.set()


results = run_ranks(one_rank_missing)
# gloo's own line names the time that was *left* of the barrier's timeout when rank 0 began
# waiting for rank 1: the timeout less what the barrier had taken so far, so it depends on load.
left = re.compile(r"Timed out waiting (\d+)ms")
show(left.sub("Timed out waiting <time left>ms", error) for error in results)
waited = int(left.search(results[0])[1])
print(f"time left when rank 0 began waiting for rank 1: {waited}ms (measured; claim: <= 1000)")
# --8<-- [end:monitored_barrier]

# --8<-- [start:mismatch]
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


results = run_ranks(different_order, timeout=[timedelta(seconds=20), timedelta(seconds=2)])
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
