"""Run a function on two ranks of a gloo process group: forked processes on the loopback."""

# --8<-- [start:helper]
import faulthandler
import logging
import multiprocessing
import os
import queue
import signal
import sys
import tempfile
import warnings
from datetime import timedelta

import torch
import torch._dynamo  # noqa: F401  DDP imports it (seconds): once here, not once per forked rank
import torch.distributed as dist

fork = multiprocessing.get_context("fork")  # a forked rank starts at once: torch is already imported
LOOPBACK = "lo0" if sys.platform == "darwin" else "lo"
HANG_S = 60  # a rank with no result after this long has hung: fail, with its stack


def _rank_main(fn, rank, world_size, tmp, env, timeout, results):
    # after fork() the first call that touches the intra-op thread pool rebuilds it; make that call here,
    # before autograd's threads start: racing them for it fails with "Invalid thread pool!"
    torch.set_num_threads(torch.get_num_threads())
    timeout = timeout[rank] if isinstance(timeout, list) else timeout  # one per rank, or one for all
    log = os.open(os.path.join(tmp, f"rank{rank}.log"), os.O_WRONLY | os.O_CREAT, 0o600)
    os.dup2(log, 1)  # a rank never prints to the page: what it writes goes to its log
    os.dup2(log, 2)
    # In a notebook, sys.stdout and sys.stderr are the kernel's, which send what a forked child
    # writes to the notebook: the rank's warnings and torch's log lines go to its log there too
    sys.stdout = sys.stderr = open(log, "w", buffering=1, closefd=False)
    for logger in [logging.getLogger(), *logging.Logger.manager.loggerDict.values()]:
        for handler in getattr(logger, "handlers", []):
            if type(handler) is logging.StreamHandler:
                handler.setStream(sys.stderr)
    # TORCH_DIST_INIT_BARRIER: init returns once every rank is connected, so that a rank that finishes
    # early cannot close its connections while another is still making them ("connectFullMesh failed")
    os.environ.update({"MASTER_ADDR": "127.0.0.1", "GLOO_SOCKET_IFNAME": LOOPBACK, "TORCH_DIST_INIT_BARRIER": "1"})
    os.environ.update(env or {})
    dist.set_debug_level_from_env()  # torch read TORCH_DISTRIBUTED_DEBUG when it was imported
    faulthandler.register(signal.SIGUSR1, file=log)  # on SIGUSR1 a rank logs every thread's stack
    try:
        dist.init_process_group(
            "gloo", init_method=f"file://{tmp}/store", rank=rank, world_size=world_size, timeout=timeout
        )
        try:
            result = fn(rank, world_size)
        except Exception as e:  # the error a rank hit is its result
            # leaving this clause frees its traceback and the DDP it holds, before the
            # group is destroyed: a DDP that outlived its group hung a rank's exit
            result = f"{type(e).__name__}: {e}"
        finally:
            dist.destroy_process_group()
    except Exception as e:  # init failed
        result = f"{type(e).__name__}: {e}"
    results.put((rank, result))


def run_ranks(fn, world_size=2, env=None, timeout=timedelta(seconds=10), logs=False):
    """Run fn(rank, world_size) in each rank; return the results in rank order (and the ranks' logs).

    timeout is the process group's (a list gives one per rank); logs=True also returns what each rank wrote.
    """
    results = fork.Queue()
    with tempfile.TemporaryDirectory() as tmp:
        args = (world_size, tmp, env, timeout, results)
        procs = [fork.Process(target=_rank_main, args=(fn, rank, *args)) for rank in range(world_size)]
        with warnings.catch_warnings():  # Python 3.12+ warns on fork() beside threads; ranks use none of them
            warnings.simplefilter("ignore", DeprecationWarning)
            for p in procs:
                p.start()
        by_rank = {}
        try:
            for _ in procs:
                rank, result = results.get(timeout=HANG_S)
                by_rank[rank] = result
        except queue.Empty:
            pass
        for p in procs:
            p.join(timeout=10)
            if p.is_alive():  # hung: log its stacks, then end it
                os.kill(p.pid, signal.SIGUSR1)
                p.join(timeout=1)
                p.kill()
                p.join()
        texts = []
        for rank in range(world_size):
            with open(os.path.join(tmp, f"rank{rank}.log")) as f:
                texts.append(f.read())
    hung = [rank for rank in range(world_size) if rank not in by_rank]
    if hung:
        raise RuntimeError(f"ranks {hung} hung; what they logged:\n" + "\n".join(texts[r] for r in hung))
    out = [by_rank[rank] for rank in range(world_size)]
    return (out, texts) if logs else out


def show(results):
    """Print each rank's result, in rank order, from this (the parent) process."""
    for rank, result in enumerate(results):
        print(f"rank {rank}: {result}")


# --8<-- [end:helper]

if __name__ == "__main__":
    show(run_ranks(lambda rank, world_size: f"{dist.get_backend()} group of {dist.get_world_size()}"))
