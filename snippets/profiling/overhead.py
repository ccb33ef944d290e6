"""Overhead against kernel time: many tiny ops against one big op, and the profiler's own cost."""
# ruff: noqa: E402, I001  (each region is a block of the page; its imports open it)
from step import (  # the page's first block
    ProfilerActivity,
    ops,
    profile,
    torch,
)

# --8<-- [start:tiny_big]
import statistics
import time


def seconds(fn, repeats=7):
    """Median CPU seconds of this thread for one call of fn (one warm-up call first)."""
    fn()
    times = []
    for _ in range(repeats):
        start = time.thread_time()
        fn()
        times.append(time.thread_time() - start)
    return statistics.median(times)


N = 1024
big = torch.randn(N)
pieces = list(big.split(1))     # the same numbers as N one-element tensors


def many_tiny():
    for piece in pieces:
        torch.add(piece, 1.0)


def one_big():
    torch.add(big, 1.0)


with profile(activities=[ProfilerActivity.CPU]) as prof:
    many_tiny()
    one_big()
print("aten::add calls:", ops(prof)["aten::add"], f"({N} tiny + 1 big)")
tiny, whole = seconds(many_tiny), seconds(one_big)
print(f"{N} one-element adds / one {N}-element add: {tiny / whole:.0f}x (measured; claim: > 50)")
print(f"one-element add, per call: {tiny / N * 1e6:.2f}us (measured; claim: between 0.1 and 100)")
# --8<-- [end:tiny_big]

# --8<-- [start:distortion]
a = torch.randn(256, 256)


def big_matmuls():
    for _ in range(4):
        a @ a


cases = [("1024 tiny adds", many_tiny, "> 1.2"), ("4 256x256 matmuls", big_matmuls, "between 0.8 and 1.25")]
for label, fn, claim in cases:
    off = seconds(fn)
    with profile(activities=[ProfilerActivity.CPU]):   # timed inside one running session
        on = seconds(fn)
    print(f"{label}, profiled / not profiled: {on / off:.2f}x (measured; claim: {claim})")


def profile_around_tiny():
    with profile(activities=[ProfilerActivity.CPU]) as prof:
        many_tiny()
    prof.events()  # the events are built when first asked for


ratio = seconds(profile_around_tiny) / seconds(many_tiny)
print(f"a whole profile (start, record, stop, build events) around the tiny adds / the adds alone: {ratio:.1f}x"
      " (measured; claim: > 5)")
# --8<-- [end:distortion]
