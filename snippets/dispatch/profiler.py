"""The profiler's view of the same calls: names and counts, never times."""
import torch

import os

# Kineto's per-session log lines; Setting up (The profiler) shows them and this level.
# The build sets the same for every page; this line is for running the file on its own.
os.environ["KINETO_LOG_LEVEL"] = "6"

# --8<-- [start:profile]
from collections import Counter

from torch.profiler import ProfilerActivity, profile

torch.manual_seed(0)
x = torch.randn(3, 4, requires_grad=True)
w = torch.randn(2, 4, requires_grad=True)
b = torch.randn(2, requires_grad=True)
with profile(activities=[ProfilerActivity.CPU]) as prof:
    loss = torch.nn.functional.linear(x, w, b).relu().sum()
    loss.backward()

counts = Counter(event.name for event in prof.events())
for name in sorted(counts):
    print(f"{counts[name]:>2}  {name}")
# --8<-- [end:profile]

# --8<-- [start:legacy_profiler]
import warnings

# The call as many older tutorials write it:
a = torch.ones(2)
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    try:
        with torch.autograd.profiler.profile(use_cuda=True) as old_prof:
            a + a
        events = sorted({e.name for e in old_prof.function_events})
    except TypeError as error:  # newer releases removed the argument
        print(f"TypeError: {error}")
        events = []
for w_ in caught:
    print(f"{w_.category.__name__}: {w_.message}")
print("events recorded:", events)
# --8<-- [end:legacy_profiler]

# --8<-- [start:modern]
# The current spelling: torch.profiler with explicit activities. On this
# CPU-only wheel only ProfilerActivity.CPU is available.
print("supported activities:", sorted(a.name for a in torch.profiler.supported_activities()))
with profile(activities=list(torch.profiler.supported_activities())) as prof:
    a + a
print("ops:", [(e.key, e.count) for e in prof.key_averages()])
# --8<-- [end:modern]
