"""NCCL-only behaviour: its own streams, the watchdog and the TORCH_NCCL_* settings.

The first region runs anywhere (gloo, one rank); the regions after the SystemExit need CUDA.
"""

import os
import tempfile

import torch
import torch.distributed as dist

# --8<-- [start:predict_nccl_stream]
with tempfile.TemporaryDirectory() as tmp:  # the same program on gloo with one rank, on the CPU
    dist.init_process_group("gloo", init_method=f"file://{tmp}/store", rank=0, world_size=1)
    t = torch.arange(4.0)
    work = dist.all_reduce(t, async_op=True)
    work.wait()
    print("all_reduce over one rank:", t.tolist())  # the sum over one rank is the tensor itself
    dist.destroy_process_group()
# --8<-- [end:predict_nccl_stream]

if not torch.cuda.is_available():  # the regions below are GPU-only blocks
    raise SystemExit(0)

# --8<-- [start:nccl_stream]
import subprocess
import sys
import textwrap

RANK_PRELUDE = """
import os, sys, tempfile
from datetime import timedelta
import torch
import torch.distributed as dist
rank, world_size, store = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
torch.cuda.set_device(rank)
dist.init_process_group("nccl", init_method=f"file://{store}", rank=rank, world_size=world_size,
                        timeout=timedelta(seconds=5))
"""


def run_nccl(body, world_size, env=None):
    """Run body on world_size fresh processes (not forked: see the prose); print rank by rank."""
    program = RANK_PRELUDE + textwrap.dedent(body)
    with tempfile.TemporaryDirectory() as tmp:
        procs = [
            subprocess.Popen(
                [sys.executable, "-c", program, str(rank), str(world_size), f"{tmp}/store"],
                env={**os.environ, **(env or {})},
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
                text=True,
            )
            for rank in range(world_size)
        ]
        outs = [p.communicate(timeout=120)[0] for p in procs]
    for rank, out in enumerate(outs):
        print(f"rank {rank}:", *out.splitlines(), sep="\n  ")


run_nccl(
    """
    t = torch.arange(4.0, device="cuda")
    before = torch.cuda.current_stream()
    work = dist.all_reduce(t, async_op=True)  # queued on the process group's own NCCL stream
    print("current stream unchanged:", torch.cuda.current_stream() == before)
    work.wait()  # makes the current stream wait for the NCCL stream; the CPU does not block
    print("all_reduce over one rank:", t.tolist())
    print("backend:", dist.get_backend())
    dist.destroy_process_group()
    """,
    world_size=1,
)
# --8<-- [end:nccl_stream]

if torch.cuda.device_count() < 2:  # the region below needs two GPUs (NCCL refuses two ranks on one)
    raise SystemExit(0)

# --8<-- [start:nccl_timeout]
run_nccl(
    """
    t = torch.ones(1, device="cuda")
    dist.all_reduce(t)  # a first collective: both ranks now hold a communicator
    torch.cuda.synchronize()
    if rank == 0:
        work = dist.all_reduce(t, async_op=True)  # rank 1 never joins
        work.wait()  # returns at once: on NCCL, wait() orders streams, it does not block the CPU
        print("wait() returned")
        try:
            torch.cuda.synchronize()  # blocks until the watchdog times the collective out
            print("synchronize returned")
        except Exception as e:
            print(type(e).__name__, str(e).splitlines()[0])
    else:
        print("skipped the second all_reduce")
        import time; time.sleep(15)  # alive while rank 0 waits, as a stuck rank would be
    os._exit(0)  # the communicator is aborted: skip destroy_process_group
    """,
    world_size=2,
    env={"TORCH_NCCL_DUMP_ON_TIMEOUT": "0", "TORCH_NCCL_ASYNC_ERROR_HANDLING": "3"},
)
# --8<-- [end:nccl_timeout]
