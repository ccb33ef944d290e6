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

# --8<-- [start:detach_count]
from torch.utils._python_dispatch import TorchDispatchMode


class CountAten(TorchDispatchMode):
    def __init__(self):
        super().__init__()
        self.calls = Counter()

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        self.calls[str(func)] += 1
        return func(*args, **(kwargs or {}))


def step_forward():
    return torch.nn.functional.linear(x, w, b).relu().sum()


with profile(activities=[ProfilerActivity.CPU]) as prof:
    step_forward()
print("profiled forward:      aten::detach events:",
      sum(e.name == "aten::detach" for e in prof.events()))
with CountAten() as mode:
    step_forward()
print("forward under a mode:  aten.detach calls:  ", mode.calls["aten.detach.default"])
with CountAten() as mode, torch.no_grad():
    step_forward()
print("same, under no_grad:   aten.detach calls:  ", mode.calls["aten.detach.default"])
# --8<-- [end:detach_count]

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
# The current spelling: torch.profiler with explicit activities. Without a GPU
# only ProfilerActivity.CPU is available.
print("supported activities:", sorted(a.name for a in torch.profiler.supported_activities()))
with profile(activities=list(torch.profiler.supported_activities())) as prof:
    a + a
print("ops:", [(e.key, e.count) for e in prof.key_averages()])

import warnings

with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    prof.key_averages().table(sort_by="cuda_time_total")  # the older tutorials' key
    print("table(sort_by='cuda_time_total'): warnings:", len(caught))
    prof.events()[0].cuda_time_total  # a FunctionEvent property of that name
    print("event.cuda_time_total:", caught[-1].category.__name__, "|",
          caught[-1].message)
# --8<-- [end:modern]
