"""torch.profiler on CPU: which aten ops ran, nested (Setting up)."""
import os

import torch

os.environ["KINETO_LOG_LEVEL"] = "6"  # set on the page in the memory example

# --8<-- [start:profiler]
from torch.profiler import ProfilerActivity, profile, record_function

torch.manual_seed(0)
w = torch.randn(64, 64)
inp = torch.randn(8, 64)
with profile(activities=[ProfilerActivity.CPU]) as prof:
    with record_function("my_step"):
        out = (inp @ w).relu().sum()

for ev in prof.events():            # in start order; print names only, never times
    depth, parent = 0, ev.cpu_parent
    while parent is not None:
        depth, parent = depth + 1, parent.cpu_parent
    print("    " * depth + ev.name)
# --8<-- [end:profiler]

# --8<-- [start:kineto]
import os
import subprocess
import sys

one_profile = """
import torch
from torch.profiler import ProfilerActivity, profile
with profile(activities=[ProfilerActivity.CPU]):
    torch.ones(2) + 1
"""
for level in (None, "5", "6"):
    env = dict(os.environ)
    env.pop("KINETO_LOG_LEVEL", None)
    if level is not None:
        env["KINETO_LOG_LEVEL"] = level
    stderr = subprocess.run([sys.executable, "-c", one_profile], env=env,
                            capture_output=True, text=True, timeout=120).stderr
    # Kineto's own session lines. (A CUDA wheel on a machine without a GPU also logs
    # an error about the device count when unset; that line depends on the machine.)
    lines = [line for line in stderr.splitlines() if "profiler_st" in line]
    shown = [f"{line.split(':', 1)[0]}:<date> <pid>:<tid> ... {line.rsplit('] ', 1)[1]}" for line in lines]
    label = "unset" if level is None else level
    print(f"KINETO_LOG_LEVEL={label}: {len(lines)} line(s)", *shown, sep="\n    ")
# --8<-- [end:kineto]
