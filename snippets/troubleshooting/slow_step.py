"""Row: my training step is slow, where does the time go? (ranges, then counts, then the fix)."""
# ruff: noqa: E402  (the environment is set before torch is imported)
import os

# Kineto's per-session log lines; the build sets the same for every page.
os.environ.setdefault("KINETO_LOG_LEVEL", "6")

import torch  # noqa: E402

torch.set_num_threads(1)  # as the build runs every page

# --8<-- [start:slow_step]
import statistics
import time
from collections import Counter

import torch
from torch import nn
from torch.profiler import ProfilerActivity, profile, record_function

torch.manual_seed(0)
samples = [torch.randn(16) for _ in range(256)]          # a dataset of 256 small items
net = nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, 4))
sgd = torch.optim.SGD(net.parameters(), lr=0.1)
labels = torch.randint(0, 4, (64,))


def batch_per_item(start):                                # normalise each item, then stack
    return torch.stack([(s - s.mean()) / s.std() for s in samples[start:start + 64]])


def step(make_batch, start):
    with record_function("data"):
        batch = make_batch(start)
    with record_function("train"):
        sgd.zero_grad()
        nn.functional.cross_entropy(net(batch), labels).backward()
        sgd.step()


def profiled_steps():
    """Four steps under the profiler: the share of their time in 'data', and the profile."""
    with profile(activities=[ProfilerActivity.CPU]) as prof:
        for start in (0, 64, 128, 192):
            step(batch_per_item, start)
    rows = {r.key: r for r in prof.key_averages()}
    data, train = rows["data"].cpu_time_total, rows["train"].cpu_time_total
    return data / (data + train), prof


for start in (0, 64):                                     # warm-up
    step(batch_per_item, start)
# A range's time is wall-clock time: a busy machine that pauses this process inside one range
# skews one profile, not the median of five.
shares, profiles = zip(*(profiled_steps() for _ in range(5)))
prof = profiles[-1]
print(f"share of the step in the 'data' range: {statistics.median(shares):.2f} (measured; claim: > 0.25)")
calls = Counter(e.name for e in prof.events() if e.cpu_parent is not None and e.cpu_parent.name == "data")
print("operators called directly in 'data', 4 steps:", dict(calls.most_common(4)))
# --8<-- [end:slow_step]

# --8<-- [start:slow_step_fix]
def batch_at_once(start):                                 # stack, then normalise the batch in one go
    batch = torch.stack(samples[start:start + 64])
    return (batch - batch.mean(1, keepdim=True)) / batch.std(1, keepdim=True)


torch.testing.assert_close(batch_at_once(0), batch_per_item(0))


def step_seconds(make_batch):
    start = time.thread_time()
    for first in (0, 64, 128, 192):
        step(make_batch, first)
    return time.thread_time() - start


per_item, at_once = [], []
for _ in range(7):
    per_item.append(step_seconds(batch_per_item))
    at_once.append(step_seconds(batch_at_once))
print(f"step time, per-item batch / whole-batch: {statistics.median(per_item) / statistics.median(at_once):.1f}x"
      " (measured; claim: > 1.5)")
# --8<-- [end:slow_step_fix]
