# %% [markdown]
# # Distributed lab: collectives, shards and DDP's gradients
#
# Four exercises on the [Distributed training](../distributed.md) chapter, in the order
# a data-parallel job uses them: an all-reduce that averages, a reduce-scatter that
# leaves each rank one shard of a sum, the gradient average DDP computes after
# backward, and the broadcast that makes the replicas start equal. Each exercise has a
# cell to complete (it holds `...`), a worked solution (folded: try first), and a check
# that prints `correct`, or what is wrong and why. The checks test the mechanism, not
# one value: an answer that only fits the obvious case fails.
#
# To work through it, download the notebook, complete a cell, run it, and run the
# check below its solution (not the solution itself, which would replace your answer).
# Every cell of the notebook was run by the build with the torch named at its top.
# The checks run your function on several ranks of a `gloo` process group: processes
# forked on this machine (Linux; macOS needs `lo0` below), talking over the loopback
# interface, as the chapter's
# [Two ranks on one machine](../distributed.md#two-ranks-on-one-machine) does.

# %% tags=["setup"]
import logging
import multiprocessing
import os
import queue
import sys
import tempfile
import warnings
from datetime import timedelta

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP

fork = multiprocessing.get_context("fork")  # a forked rank has torch imported already


def _rank_main(fn, rank, world_size, tmp, results):
    torch.set_num_threads(1)  # rebuilds the thread pool in the child, before any work
    log = os.open(os.path.join(tmp, f"rank{rank}.log"), os.O_WRONLY | os.O_CREAT, 0o600)
    os.dup2(log, 1)  # a rank writes to its own log, never to the page
    os.dup2(log, 2)
    sys.stdout = sys.stderr = open(log, "w", buffering=1, closefd=False)
    for logger in [logging.getLogger(), *logging.Logger.manager.loggerDict.values()]:
        for handler in getattr(logger, "handlers", []):  # torch's log lines too
            if type(handler) is logging.StreamHandler:
                handler.setStream(sys.stderr)
    os.environ.update({"GLOO_SOCKET_IFNAME": "lo", "TORCH_DIST_INIT_BARRIER": "1"})
    try:
        dist.init_process_group(
            "gloo",
            init_method=f"file://{tmp}/store",  # a file to meet at: no port
            rank=rank,
            world_size=world_size,
            timeout=timedelta(seconds=10),
        )
        try:
            result = fn(rank, world_size)
        except Exception as error:  # what a rank raised is its result
            result = f"{type(error).__name__}: {error}"
        finally:
            dist.destroy_process_group()
    except Exception as error:
        result = f"{type(error).__name__}: {error}"
    results.put((rank, result))


def run_ranks(fn, world_size):
    """fn(rank, world_size) on each rank of a gloo group; the results in rank order."""
    results = fork.Queue()
    with tempfile.TemporaryDirectory() as tmp:
        args = (world_size, tmp, results)
        procs = [
            fork.Process(target=_rank_main, args=(fn, rank, *args))
            for rank in range(world_size)
        ]
        with warnings.catch_warnings():  # Python 3.12+ warns on fork() beside threads
            warnings.simplefilter("ignore", DeprecationWarning)
            for p in procs:
                p.start()
        by_rank = {}
        try:
            for _ in procs:
                rank, result = results.get(timeout=60)
                by_rank[rank] = result
        except queue.Empty:
            pass
        for p in procs:
            p.join(timeout=10)
            if p.is_alive():
                p.kill()
                p.join()
    hung = [rank for rank in range(world_size) if rank not in by_rank]
    if hung:
        raise RuntimeError(f"ranks {hung} hung (they wait for a collective)")
    return [by_rank[rank] for rank in range(world_size)]


def hello(rank, world_size):
    return f"rank {dist.get_rank()} of {dist.get_world_size()} ({dist.get_backend()})"


for line in run_ranks(hello, 3):
    print(line)

# %% [markdown]
# ## Exercise 1: an average over ranks {#an-average-over-ranks}
#
# [`all_reduce`](pytorch:torch/distributed/distributed_c10d.py#all_reduce) combines the
# tensor every rank passes, by default with a sum, and writes the result into that same
# tensor on every rank. Complete `mean_across_ranks(t)` so that it returns, on every
# rank, the mean of the ranks' `t`, and leaves `t` as it was (a caller may still need
# this rank's own value). The check runs it on three ranks. See
# [Collectives](../distributed.md#collectives-what-each-rank-sends-and-receives).

# %% tags=["starter"] exercise="mean-across-ranks"
def mean_across_ranks(t):
    """The mean of every rank's t, on every rank; t itself unchanged."""
    ...

# %% tags=["solution"]
def mean_across_ranks(t):
    """The mean of every rank's t, on every rank; t itself unchanged."""
    total = t.clone()  # all_reduce writes into the tensor it is given
    dist.all_reduce(total)  # op=ReduceOp.SUM, the default
    return total / dist.get_world_size()

# %% tags=["check"]
def check_mean_across_ranks():
    def on_rank(rank, world_size):
        t = torch.tensor([1.0, 10.0]) * (rank + 1)
        mean = mean_across_ranks(t)
        return mean.tolist() if isinstance(mean, torch.Tensor) else mean, t.tolist()

    results = run_ranks(on_rank, 3)
    for rank, result in enumerate(results):
        if isinstance(result, str):
            return f"wrong: rank {rank} raised {result.splitlines()[0][:100]}"
        mean, t = result
        if t != [1.0 * (rank + 1), 10.0 * (rank + 1)]:
            return (
                f"wrong: rank {rank}'s t is now {t}. all_reduce writes its result into "
                "the tensor it is given: reduce a copy."
            )
        if mean == [6.0, 60.0]:
            return "wrong: every rank got the sum of the three ranks' t, not the mean"
        if mean != [2.0, 20.0]:
            return f"wrong: rank {rank} got {mean}, not the mean [2.0, 20.0]"
    return "correct"


print(check_mean_across_ranks())

# %% tags=["mistake"]
def mean_across_ranks(t):
    # Right values, in the caller's tensor.
    dist.all_reduce(t)
    return t / dist.get_world_size()

# %% tags=["mistake"]
def mean_across_ranks(t):
    # The sum, not divided.
    total = t.clone()
    dist.all_reduce(total)
    return total

# %% [markdown]
# ## Exercise 2: one shard of a sum {#one-shard-of-a-sum}
#
# [`reduce_scatter_tensor`](pytorch:torch/distributed/distributed_c10d.py#reduce_scatter_tensor)
# sums every rank's input, as all-reduce does, but leaves each rank only its own
# chunk: rank `i` receives chunk `i` of the sum, in an output tensor the caller
# allocates, `world_size` times shorter than the input. FSDP turns full gradients
# into gradient shards this way. Complete `reduce_shard(t)` for a 1-D `t` whose length
# divides by the world size. The check runs it on two and on three ranks.

# %% tags=["starter"] exercise="reduce-shard"
def reduce_shard(t):
    """Chunk `rank` of the sum over ranks of t (1-D, divisible by the world size)."""
    ...

# %% tags=["solution"]
def reduce_shard(t):
    """Chunk `rank` of the sum over ranks of t (1-D, divisible by the world size)."""
    shard = t.new_empty(t.numel() // dist.get_world_size())
    dist.reduce_scatter_tensor(shard, t)
    return shard

# %% tags=["check"]
def check_reduce_shard():
    def on_rank(rank, world_size):
        shard = reduce_shard(torch.arange(6.0) + 10 * rank)
        return shard.tolist() if isinstance(shard, torch.Tensor) else repr(shard)

    for world_size in (2, 3):
        total = sum(torch.arange(6.0) + 10 * rank for rank in range(world_size))
        for rank, got in enumerate(run_ranks(on_rank, world_size)):
            want = total.chunk(world_size)[rank].tolist()
            if isinstance(got, str) and "Check failed" in got:
                return (
                    f"wrong: on {world_size} ranks gloo refused the shapes: the output "
                    "holds one rank's chunk, numel // world_size elements, and the "
                    "input is world_size times longer."
                )
            if got == (torch.arange(6.0) + 10 * rank).chunk(world_size)[rank].tolist():
                return (
                    f"wrong: on {world_size} ranks, rank {rank} got its own chunk of its "
                    "own t, not that chunk of the sum over ranks: no communication."
                )
            if got != want:
                return f"wrong: on {world_size} ranks, rank {rank} got {got}, not {want}"
    return "correct"


print(check_reduce_shard())

# %% tags=["mistake"]
def reduce_shard(t):
    # An output the size of the input, as all_reduce would take.
    shard = torch.empty_like(t)
    dist.reduce_scatter_tensor(shard, t)
    return shard

# %% tags=["mistake"]
def reduce_shard(t):
    # The right slice, of this rank's tensor only.
    return t.chunk(dist.get_world_size())[dist.get_rank()]

# %% [markdown]
# ## Exercise 3: what DDP's gradient sync computes {#what-ddp-averages}
#
# After each backward, DDP's
# [`Reducer`](pytorch:torch/csrc/distributed/c10d/reducer.hpp#Reducer) all-reduces the
# gradients, bucket by bucket, so that every replica takes the same step. Complete
# `sync_gradients(model)`, called after `loss.backward()` on each rank's own batch, so
# that every parameter's `.grad` ends as DDP would leave it. The check trains the same
# model wrapped in `DDP` beside yours, on the same batches, and compares. See
# [DDP's Reducer](../distributed.md#ddps-reducer-parameters-in-buckets).

# %% tags=["starter"] exercise="ddp-gradients"
def sync_gradients(model):
    """Make each parameter's .grad what DDP's all-reduce would leave on this rank."""
    ...

# %% tags=["solution"]
def sync_gradients(model):
    """Make each parameter's .grad what DDP's all-reduce would leave on this rank."""
    for p in model.parameters():
        dist.all_reduce(p.grad)  # the sum over ranks, in place
        p.grad /= dist.get_world_size()  # DDP averages

# %% tags=["check"]
def check_ddp_gradients():
    def on_rank(rank, world_size):
        torch.manual_seed(0)  # the same weights on every rank
        mine = torch.nn.Linear(3, 2)
        reference = torch.nn.Linear(3, 2)
        reference.load_state_dict(mine.state_dict())
        ddp = DDP(reference)
        batch = torch.randn(4, 3) + rank  # each rank its own data
        ddp(batch).pow(2).mean().backward()
        mine(batch).pow(2).mean().backward()
        sync_gradients(mine)
        ratios = [
            (p.grad / q.grad).mean().item()
            for p, q in zip(mine.parameters(), reference.parameters())
        ]
        same = all(
            torch.allclose(p.grad, q.grad)
            for p, q in zip(mine.parameters(), reference.parameters())
        )
        return same, round(min(ratios), 3)

    for rank, result in enumerate(run_ranks(on_rank, 3)):
        if isinstance(result, str):
            return f"wrong: rank {rank} raised {result.splitlines()[0][:100]}"
        same, ratio = result
        if same:
            continue
        if abs(ratio - 3) < 1e-3:
            return (
                "wrong: your gradients are 3 times DDP's on 3 ranks: all_reduce sums. "
                "DDP divides by the world size, so that a step on N ranks matches one "
                "process's step on the N batches together with a mean loss."
            )
        return (
            f"wrong: rank {rank}'s gradients are not DDP's. DDP all-reduces the "
            "gradients (p.grad), not the parameters: the ranks' gradients must be "
            "averaged before the optimizer steps."
        )
    return "correct"


print(check_ddp_gradients())

# %% tags=["mistake"]
def sync_gradients(model):
    # The sum over ranks, left as it is.
    for p in model.parameters():
        dist.all_reduce(p.grad)

# %% tags=["mistake"]
def sync_gradients(model):
    # Averages the weights (all equal already) instead of their gradients.
    for p in model.parameters():
        dist.all_reduce(p.data)
        p.data /= dist.get_world_size()

# %% [markdown]
# ## Exercise 4: replicas that start equal {#replicas-that-start-equal}
#
# When it is built, DDP broadcasts rank 0's parameters to every rank, so that replicas
# initialised differently start from the same weights.
# [`broadcast`](pytorch:torch/distributed/distributed_c10d.py#broadcast) sends the tensor
# of rank `src` and, on every other rank, writes it into the tensor given there.
# Complete `start_from_rank0(model)` so that every rank's parameters become rank 0's,
# in place (an optimizer may already hold them). See
# [DDP: replicas that start equal](../distributed.md#ddp-replicas-that-start-equal).

# %% tags=["starter"] exercise="start-equal"
def start_from_rank0(model):
    """Overwrite this rank's parameters, in place, with rank 0's."""
    ...

# %% tags=["solution"]
def start_from_rank0(model):
    """Overwrite this rank's parameters, in place, with rank 0's."""
    with torch.no_grad():  # a write autograd need not record
        for p in model.parameters():
            dist.broadcast(p, src=0)  # sent from rank 0, written into p elsewhere

# %% tags=["check"]
def check_start_equal():
    def on_rank(rank, world_size):
        torch.manual_seed(rank)  # each rank its own initial weights
        model = torch.nn.Linear(3, 2)
        before = [id(p) for p in model.parameters()]
        start_from_rank0(model)
        same_objects = before == [id(p) for p in model.parameters()]
        return same_objects, [p.detach().tolist() for p in model.parameters()]

    torch.manual_seed(0)
    rank0 = [p.detach().tolist() for p in torch.nn.Linear(3, 2).parameters()]
    results = run_ranks(on_rank, 3)
    for rank, result in enumerate(results):
        if isinstance(result, str):
            return f"wrong: rank {rank} raised {result.splitlines()[0][:100]}"
        same_objects, params = result
        if not same_objects:
            return "wrong: the model holds new parameters; write into the old ones"
        if params == rank0:
            continue
        if all(other[1] == params for other in results):
            return (
                "wrong: the ranks agree, but on other weights than rank 0's: an "
                "all-reduce mixes every rank's weights. broadcast from src=0 copies "
                "rank 0's."
            )
        return (
            f"wrong: rank {rank} kept weights of its own. broadcast writes into the "
            "tensor each rank passes: a copy (clone, detach().clone(), .tolist()) "
            "received rank 0's values and was dropped."
        )
    return "correct"


print(check_start_equal())

# %% tags=["mistake"]
def start_from_rank0(model):
    # Receives into a copy.
    for p in model.parameters():
        dist.broadcast(p.detach().clone(), src=0)

# %% tags=["mistake"]
def start_from_rank0(model):
    # The mean of every rank's weights: equal everywhere, but not rank 0's.
    with torch.no_grad():
        for p in model.parameters():
            dist.all_reduce(p)
            p /= dist.get_world_size()
