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

# --8<-- [start:seed_profiler]
import warnings

with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    try:
        with torch.autograd.profiler.profile(use_cuda=True) as old:   # the seed's call
            inp @ w
        device = old.use_device
    except TypeError as error:  # newer releases removed the argument
        print(f"TypeError: {error}")
        device = "(no profile)"
for w_ in caught:
    print(f"{w_.category.__name__}: {w_.message}")
print("device profiling in effect:", device)
# --8<-- [end:seed_profiler]
