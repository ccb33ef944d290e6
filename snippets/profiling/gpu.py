"""GPU-only blocks of the Profiling chapter (each does nothing without CUDA)."""
import io
import os

os.environ.setdefault("KINETO_LOG_LEVEL", "6")

# --8<-- [start:memory_history]
import pickle
from collections import Counter

import torch
from torch import nn
from torch.profiler import ProfilerActivity, profile

if torch.cuda.is_available():
    torch.manual_seed(0)
    gpu_model = nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, 4)).cuda()
    gpu_opt = torch.optim.SGD(gpu_model.parameters(), lr=0.1)
    gx, gy = torch.randn(8, 16, device="cuda"), torch.randint(0, 4, (8,), device="cuda")

    def gpu_step():
        gpu_opt.zero_grad(set_to_none=True)
        loss = nn.functional.cross_entropy(gpu_model(gx), gy)
        loss.backward()
        gpu_opt.step()
        return loss.detach()

    torch.cuda.memory._record_memory_history(max_entries=100_000)
    for _ in range(2):
        gpu_step()
    torch.cuda.synchronize()
    snapshot = torch.cuda.memory._snapshot()
    torch.cuda.memory._dump_snapshot("snapshot.pickle")     # open it at pytorch.org/memory_viz
    torch.cuda.memory._record_memory_history(enabled=None)  # stop recording
    with open("snapshot.pickle", "rb") as f:
        print("snapshot keys:", sorted(pickle.load(f)))
    actions = Counter(e["action"] for trace in snapshot["device_traces"] for e in trace)
    print("trace entries by action:", dict(sorted(actions.items())))
    frames = next(e["frames"] for trace in snapshot["device_traces"] for e in trace if e["action"] == "alloc")
    print("an allocation carries its stack:", len(frames) > 0)
# --8<-- [end:memory_history]

# --8<-- [start:sync_gpu]
if torch.cuda.is_available():
    def gpu_loop(log, steps=4):
        total, values = torch.zeros((), device="cuda"), []
        for _ in range(steps):
            loss = gpu_step()
            if log == "item":
                values.append(loss.item())
            elif log == "print":
                print(loss, file=io.StringIO())
            else:
                total += loss
        if log == "accumulate":
            values.append(total.item() / steps)

    for _ in range(3):
        gpu_step()
    torch.cuda.synchronize()
    for log in ("item", "print", "accumulate"):
        with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
            gpu_loop(log)
        names = Counter(e.name for e in prof.events())
        print(f"{log}, _local_scalar_dense calls in 4 steps: {names['aten::_local_scalar_dense']}")
        print(f"{log}, cudaStreamSynchronize calls in 4 steps: {names['cudaStreamSynchronize']}")
        print(f"{log}, cudaDeviceSynchronize calls in 4 steps: {names['cudaDeviceSynchronize']}")
# --8<-- [end:sync_gpu]

# --8<-- [start:sync_debug_gpu]
import warnings

if torch.cuda.is_available():
    x = torch.randn(4096, device="cuda")
    calls = {
        "x * 2": lambda: x * 2,
        "x.sum()": lambda: x.sum(),
        "x.sum().item()": lambda: x.sum().item(),
        "x[x > 0]": lambda: x[x > 0],
        "torch.nonzero(x)": lambda: torch.nonzero(x),
        "x.cpu()": lambda: x.cpu(),
    }
    torch.cuda.set_sync_debug_mode("warn")
    for name, call in calls.items():
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            call()
        synced = [w for w in caught if "synchronizing" in str(w.message)]
        print(f"{name:18} warns: {bool(synced)}" + (f" ({synced[0].category.__name__})" if synced else ""))
    torch.cuda.set_sync_debug_mode("error")
    try:
        x.sum().item()
    except RuntimeError as e:
        print("'error' mode:", str(e).splitlines()[0])
    torch.cuda.set_sync_debug_mode("default")
# --8<-- [end:sync_debug_gpu]

# --8<-- [start:cuda_timing]
import time

if torch.cuda.is_available():
    a = torch.randn(4096, 4096, device="cuda")
    a @ a
    torch.cuda.synchronize()
    start = time.perf_counter()
    a @ a                                    # only queued: the call returns before the kernel ran
    unsynced = time.perf_counter() - start
    torch.cuda.synchronize()
    start = time.perf_counter()
    a @ a
    torch.cuda.synchronize()                 # wait for the kernel
    synced = time.perf_counter() - start
    begin, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    begin.record()
    a @ a
    end.record()
    end.synchronize()
    print(f"synchronised / unsynchronised time of one matmul: {synced / unsynced:.0f}x (measured; claim: > 5)")
    print(f"CUDA events / synchronised perf_counter: {begin.elapsed_time(end) / 1000 / synced:.2f}x"
          " (measured; claim: between 0.5 and 1.5)")
# --8<-- [end:cuda_timing]
