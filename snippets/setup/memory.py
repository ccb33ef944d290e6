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

# --8<-- [start:predict_cuda_memory]
import pathlib
import re

# The caching allocator's size constants, from the header this torch ships.
header = pathlib.Path(torch.__file__).parent / "include/c10/core/AllocatorConfig.h"
text = header.read_text()
k = {name: int(value) for name, value in re.findall(r"constexpr size_t (k\w+) = (\d+);", text)}
mid_segment = int(re.search(r"large_segment_size_\{(\d+)\}", text)[1])

MiB = 1024 * 1024
request = 1024 * 1024 * 4                             # torch.empty(1024, 1024): float32
block = -(-request // k["kMinBlockSize"]) * k["kMinBlockSize"]
if block <= k["kSmallSize"]:                          # small pool
    segment = k["kSmallBuffer"]
elif block < k["kMinLargeAlloc"]:                     # large pool, mid-sized request
    segment = mid_segment
else:                                                 # large pool, a segment of its own
    segment = -(-block // k["kRoundLarge"]) * k["kRoundLarge"]
print("allocated by x (MiB):", block / MiB)
print("memory_allocated (MiB):", block / MiB)
print("memory_reserved (MiB):", segment / MiB)
print("after del, allocated (MiB):", 0 / MiB)
print("after del, reserved (MiB):", segment / MiB)     # the block stays cached
print("after empty_cache, reserved (MiB):", 0 / MiB)
print("segments ever requested from the driver:", 1)
# --8<-- [end:predict_cuda_memory]
