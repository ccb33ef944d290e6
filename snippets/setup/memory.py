"""Memory statistics on a CPU-only build (Setting up)."""
import torch

# --8<-- [start:cpu_memory]
print("torch.cuda.is_available():", torch.cuda.is_available())
print("torch.cuda.memory_allocated():", torch.cuda.memory_allocated())
print("torch.cuda.memory_reserved():", torch.cuda.memory_reserved())
print("torch.cuda.memory_stats():", dict(torch.cuda.memory_stats()))
# --8<-- [end:cpu_memory]

# --8<-- [start:profile_memory]
import os

from torch.profiler import ProfilerActivity, profile

# Kineto (the profiler's engine) prints two timestamped "profiler_start/stop"
# lines per session unless its log level is raised before first use.
os.environ["KINETO_LOG_LEVEL"] = "6"

with profile(activities=[ProfilerActivity.CPU], profile_memory=True) as prof:
    x = torch.empty(1024, 1024)        # 1024 * 1024 float32 = 4 MiB
    y = x * 2                          # another 4 MiB for the result
    del x
print("bytes held by y's storage:", y.untyped_storage().nbytes())
for ev in prof.key_averages():
    if ev.key in ("aten::empty", "aten::mul"):
        print(f"{ev.key:12} allocated {ev.cpu_memory_usage} bytes")
# --8<-- [end:profile_memory]
