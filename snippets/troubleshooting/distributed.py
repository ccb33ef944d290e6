"""Row 6: training hangs, or DDP says a parameter did not receive a gradient."""

# --8<-- [start:two_ranks]
import multiprocessing
import os
import sys
import tempfile
import warnings
from datetime import timedelta

import torch
import torch._dynamo  # noqa: F401  DDP imports it: once here, not in each forked rank
import torch.distributed as dist
from torch import nn
from torch.nn.parallel import DistributedDataParallel as DDP

fork = multiprocessing.get_context("fork")


def _rank(fn, rank, tmp, env, results):
    # after fork() the first call that touches the intra-op thread pool rebuilds it; make that call here,
    # before autograd's threads start: racing them for it fails with "Invalid thread pool!"
    torch.set_num_threads(torch.get_num_threads())
    log = os.open(os.path.join(tmp, f"rank{rank}.log"), os.O_WRONLY | os.O_CREAT, 0o600)
    os.dup2(log, 1)  # ranks never print: the parent prints their results in rank order
    os.dup2(log, 2)  # (rank 1's timeout, 2 s, runs out first: rank 0 has 20 s)
    os.environ.update({"GLOO_SOCKET_IFNAME": "lo0" if sys.platform == "darwin" else "lo", **env})
    os.environ["TORCH_DIST_INIT_BARRIER"] = "1"  # init returns once both ranks are connected
    dist.set_debug_level_from_env()  # torch read TORCH_DISTRIBUTED_DEBUG when it was imported
    try:
        dist.init_process_group(
            "gloo", init_method=f"file://{tmp}/store", rank=rank, world_size=2, timeout=timedelta(seconds=2 if rank else 20)
        )
        try:
            result = fn(rank)
        finally:
            dist.destroy_process_group()
    except Exception as e:
        result = f"{type(e).__name__}: {e}"
    results.put((rank, result))


def two_ranks(fn, env=None):
    """Run fn(rank) on two gloo ranks forked on this machine; return their results in rank order."""
    results = fork.Queue()
    with tempfile.TemporaryDirectory() as tmp:
        procs = [fork.Process(target=_rank, args=(fn, rank, tmp, env or {}, results)) for rank in range(2)]
        with warnings.catch_warnings():  # Python 3.12+ warns on fork() beside threads; ranks use none of them
            warnings.simplefilter("ignore", DeprecationWarning)
            for p in procs:
                p.start()
        by_rank = dict(results.get(timeout=60) for _ in procs)
        for p in procs:
            p.join()
    return [by_rank[0], by_rank[1]]


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Linear(4, 4)
        self.aux_head = nn.Linear(4, 1)  # used only when aux=True

    def forward(self, x, aux=False):
        y = self.body(x)
        return y + self.aux_head(y) if aux else y


def train(rank, **ddp_options):
    torch.manual_seed(0)
    ddp = DDP(Model(), **ddp_options)
    for step in range(2):
        try:
            ddp(torch.randn(2, 4)).sum().backward()
        except RuntimeError as e:
            lines = str(e).splitlines()
            named = [line for line in lines if line.startswith("Parameters which did not receive grad")]
            return f"step {step}: {lines[0].split('. ')[0]}.\n  {named[0]}"
    return "2 steps, no error"


for rank, result in enumerate(two_ranks(train, env={"TORCH_DISTRIBUTED_DEBUG": "INFO"})):
    print(f"rank {rank}: {result}")
# --8<-- [end:two_ranks]

# --8<-- [start:unused_fix]
for rank, result in enumerate(two_ranks(lambda rank: train(rank, find_unused_parameters=True))):
    print(f"rank {rank}, find_unused_parameters=True: {result}")
# --8<-- [end:unused_fix]


# --8<-- [start:hang_detail]
import re  # noqa: E402


def skips_on_rank_1(rank):
    if rank == 0:  # e.g. a metric all-reduced on rank 0 only
        dist.all_reduce(torch.ones(1))
    dist.all_reduce(torch.ones(4))  # the collective every rank runs (DDP's gradients, say)
    return "finished"


def short(error):
    if "mismatch between collectives" in error:  # DETAIL: how the two collectives differ
        head, _, aspects = error.partition("Collectives differ in the following aspects:")
        return f"{head.split(' Rank')[0]} Differ in: {' '.join(aspects.split())}"
    return re.sub(r"\[127\.0\.0\.1\]:\d+", "[127.0.0.1]:<port>", error.split(". This is")[0])


for name, env in (("default", {}), ("TORCH_DISTRIBUTED_DEBUG=DETAIL", {"TORCH_DISTRIBUTED_DEBUG": "DETAIL"})):
    print(f"{name}:")
    for rank, result in enumerate(two_ranks(skips_on_rank_1, env)):
        print(f"  rank {rank}: {short(result)}")
# --8<-- [end:hang_detail]
