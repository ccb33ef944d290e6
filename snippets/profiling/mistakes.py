"""Mistakes made when profiling, each reproduced."""
# ruff: noqa: E402, I001  (each region is a block of the page; its imports open it)
from step import (  # the page's first block
    ProfilerActivity,
    profile,
    schedule,
    train_step,
)

# --8<-- [start:no_warmup]
import subprocess
import sys

child = """
import time, statistics, torch
from torch import nn
torch.set_num_threads(1)
torch.manual_seed(0)
model = nn.Sequential(nn.Conv2d(3, 8, 3), nn.ReLU(), nn.Flatten(), nn.Linear(8 * 14 * 14, 4))
opt = torch.optim.SGD(model.parameters(), lr=0.1)
x, y = torch.randn(8, 3, 16, 16), torch.randint(0, 4, (8,))
times = []
for _ in range(20):
    start = time.thread_time()  # CPU time of this thread: what other processes do is not counted
    opt.zero_grad()
    nn.functional.cross_entropy(model(x), y).backward()
    opt.step()
    times.append(time.thread_time() - start)
print(times[0] / statistics.median(times[5:]))
"""
ratio = float(subprocess.run([sys.executable, "-c", child], capture_output=True, text=True,
                             check=True, timeout=120).stdout)
print(f"first step of a fresh process / a later step: {ratio:.1f}x (measured; claim: > 2)")
# --8<-- [end:no_warmup]

# --8<-- [start:no_schedule]
import json
import os


def trace_of_50_steps(**kwargs):
    """(events other than metadata, bytes) of the Chrome trace of 50 training steps."""
    with profile(activities=[ProfilerActivity.CPU], **kwargs) as prof:
        for _ in range(50):
            train_step()
            prof.step()
    prof.export_chrome_trace("trace.json")
    with open("trace.json") as f:
        events = json.load(f)["traceEvents"]
    return sum(e["ph"] != "M" for e in events), os.path.getsize("trace.json")  # 'M': thread names


everything, everything_bytes = trace_of_50_steps()
two, two_bytes = trace_of_50_steps(schedule=schedule(wait=1, warmup=1, active=2, repeat=1))
print("50 steps, no schedule:", everything, "trace events")
print("50 steps, schedule(wait=1, warmup=1, active=2, repeat=1):", two, "trace events")
print(f"file size, no schedule / schedule: {everything_bytes / two_bytes:.0f}x (measured; claim: > 5)")
# --8<-- [end:no_schedule]

# --8<-- [start:additive]
import statistics


def four_steps():
    with profile(activities=[ProfilerActivity.CPU]) as prof:
        for _ in range(4):
            train_step()
    return prof


def double_counted(prof):
    """(linear total + addmm total) / linear total: above 1 by the time counted in both rows."""
    rows = {r.key: r for r in prof.key_averages()}
    linear, addmm = rows["aten::linear"], rows["aten::addmm"]
    return (linear.cpu_time_total + addmm.cpu_time_total) / linear.cpu_time_total


prof = four_steps()
print("aten::addmm runs inside aten::linear:", all(e.cpu_parent.name == "aten::linear"
                                                  for e in prof.events() if e.name == "aten::addmm"))
# Times are wall-clock: another process scheduled in during linear's own time (outside addmm) adds
# to linear's total only and sinks one profile's ratio. The median of five is steady.
ratio = statistics.median([double_counted(prof)] + [double_counted(four_steps()) for _ in range(4)])
print(f"(linear total + addmm total) / linear total: {ratio:.2f}x (measured; claim: between 1.1 and 2)")
# --8<-- [end:additive]
