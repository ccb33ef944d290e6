"""Streams and events on a CUDA device (the page runs these only where CUDA exists)."""
import sys

import torch

if not torch.cuda.is_available():  # standalone run on a CPU-only machine
    print("CUDA is not available: nothing to run")
    sys.exit(0)

# --8<-- [start:cuda_events]
# Time GPU work with events recorded on the stream, not with time.time():
# kernel launches return immediately, before the GPU has run them.
x = torch.randn(8192, 8192, device="cuda")
start = torch.cuda.Event(enable_timing=True)
end = torch.cuda.Event(enable_timing=True)
torch.cuda.synchronize()
start.record()
for _ in range(10):
    y = x @ x
end.record()
print("work still queued when Python got here:", not end.query())
end.synchronize()  # wait for the GPU to reach `end`
ms = start.elapsed_time(end)
print("elapsed_time is positive:", ms > 0)
# --8<-- [end:cuda_events]

# --8<-- [start:cuda_streams]
main = torch.cuda.current_stream()
side = torch.cuda.Stream()
a = torch.randn(4096, 4096, device="cuda")  # produced on the main stream

side.wait_stream(main)  # side must not read `a` before main has written it
with torch.cuda.stream(side):
    b = a @ a  # runs on `side`; b's memory belongs to side's pool
# `a` was allocated on main but is now used on side: tell the caching
# allocator, so a's block is not reused before side's work has finished.
a.record_stream(side)
main.wait_stream(side)  # main must not read `b` before side has written it
b.record_stream(main)  # the mirror case: `b` belongs to side's pool and is read on main
print("current stream is the default stream:", main == torch.cuda.default_stream())
print("b matches a recompute on main:", torch.allclose(b, a @ a))
del a, b  # safe: the allocator waits for the other stream before reusing either block
# --8<-- [end:cuda_streams]
