"""A hidden synchronisation: .item() (and print) inside the training loop, as the profiler shows it."""
# ruff: noqa: E402, I001  (each region is a block of the page; its imports open it)
from step import (  # the page's first block
    ProfilerActivity,
    ops,
    profile,
    torch,
    train_step,
)

# --8<-- [start:item]
import io


def loop(log, steps=4):
    total = torch.zeros(())
    for _ in range(steps):
        loss = train_step()
        if log == "item":
            losses.append(loss.item())          # one number, every step
        elif log == "print":
            print(loss, file=sink)              # printing a tensor reads it too
        else:
            total += loss                       # stays a tensor: nothing is read
    if log == "accumulate":
        losses.append(total.item() / steps)     # one read, after the loop


losses, sink = [], io.StringIO()
for log in ("item", "print", "accumulate"):
    with profile(activities=[ProfilerActivity.CPU]) as prof:
        loop(log)
    reads = ops(prof)
    print(f"{log:<10}: aten::item {reads['aten::item']:>2},",
          f"aten::_local_scalar_dense {reads['aten::_local_scalar_dense']:>2} in 4 steps")
# --8<-- [end:item]

# --8<-- [start:item_cost]
import statistics
import time


def loop_seconds(log):
    start = time.thread_time()
    loop(log, steps=20)
    return time.thread_time() - start


times = {"item": [], "accumulate": []}
for _ in range(7):
    for log in times:
        times[log].append(loop_seconds(log))
ratio = statistics.median(times["item"]) / statistics.median(times["accumulate"])
print(f"CPU, .item() every step / one .item() at the end: {ratio:.2f}x (measured; claim: between 0.7 and 1.5)")
# --8<-- [end:item_cost]

# --8<-- [start:sync_predict]
for log in ("item", "accumulate"):
    with profile(activities=[ProfilerActivity.CPU]) as prof:
        loop(log)
    print(f"{log}, _local_scalar_dense calls in 4 steps: {ops(prof)['aten::_local_scalar_dense']}")
# --8<-- [end:sync_predict]

# --8<-- [start:sync_debug_cpu]
print("built with CUDA:", torch.backends.cuda.is_built())
print("GPU available:  ", torch.cuda.is_available())
try:
    torch.cuda.set_sync_debug_mode("warn")  # first initialises CUDA
    print("sync debug mode:", torch.cuda.get_sync_debug_mode())
except (AssertionError, RuntimeError) as e:  # the error depends on the build and the driver
    print(f"set_sync_debug_mode('warn') fails before it sets anything: {type(e).__name__}")
# --8<-- [end:sync_debug_cpu]
