"""Memory: profile_memory's columns, the profiler's memory timeline on the CPU, and the GPU's own recorder."""
# ruff: noqa: E402, I001  (each region is a block of the page; its imports open it)
from step import (  # the page's first block
    Counter,
    ProfilerActivity,
    opt,
    profile,
    train_step,
)

# --8<-- [start:columns]
opt.zero_grad(set_to_none=True)  # so that no block this profile frees predates it (see below)
with profile(activities=[ProfilerActivity.CPU], profile_memory=True) as prof:
    for _ in range(2):
        train_step()
print(f"{'event':<58} {'calls':>5} {'CPU Mem':>8} {'Self CPU Mem':>13}  (bytes)")
for row in prof.key_averages():
    if row.cpu_memory_usage or row.self_cpu_memory_usage:
        print(f"{row.key:<58} {row.count:>5} {row.cpu_memory_usage:>8} {row.self_cpu_memory_usage:>13}")
# --8<-- [end:columns]

# --8<-- [start:unknown]
import re
import subprocess
import sys

child = """
import torch
from torch.profiler import profile
old = [torch.ones(1000) for _ in range(3)]      # allocated before any profile
for i in range(3):
    with profile(profile_memory=True) as prof:
        old.pop()                                # one of them freed inside each profile
    print(f"profile {i}: memory events {sum(e.name == '[memory]' for e in prof.events())}")
"""
run = subprocess.run([sys.executable, "-c", child], capture_output=True, text=True, timeout=120)
print(run.stdout.strip())
logged = [line for line in run.stderr.splitlines() if "unknown size" in line]
print(f"log lines: {len(logged)}")
for line in logged:  # a C++ log line: its date and time dropped
    print(re.sub(r"^\[W\d{4} [\d:.]+ ", "[W<date> ", line))
# --8<-- [end:unknown]

# --8<-- [start:timeline]
import gzip
import json
import warnings

from torch.profiler import _memory_profiler as mp

opt.zero_grad(set_to_none=True)
with profile(activities=[ProfilerActivity.CPU], profile_memory=True, record_shapes=True, with_stack=True) as prof:
    for _ in range(2):
        train_step()
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    prof.export_memory_timeline("memory.raw.json.gz", device="cpu")
print("warning:", *{f"{w.category.__name__}: {w.message}" for w in caught})
with gzip.open("memory.raw.json.gz", "rt") as f:
    raw = json.load(f)  # [timestamp, action, bytes, category] per event
category_of = {index: (c.name if c else "unknown") for c, index in mp._CATEGORY_TO_INDEX.items()}
action_of = {index: a.name for a, index in mp._ACTION_TO_INDEX.items()}
created = Counter()
for _, action, size, category in raw:
    if action_of[action] == "CREATE":
        created[category_of[category]] += size
print(f"{len(raw)} raw events; by action:", dict(sorted(Counter(action_of[a] for _, a, _, _ in raw).items())))
print("bytes created, by category:", dict(sorted(created.items())))
before = Counter(category_of[c] for _, a, _, c in raw if action_of[a] == "PREEXISTING")
print("tensors there before the profile, by category:", dict(sorted(before.items())))
with warnings.catch_warnings():
    warnings.simplefilter("ignore", FutureWarning)
    prof.export_memory_timeline("memory.json", device="cpu")  # [times, [bytes by category] per time]
with open("memory.json") as f:
    times, sizes = json.load(f)
print("memory.json: one time list and one list of sizes per time:", len(times) == len(sizes))
# --8<-- [end:timeline]

# --8<-- [start:draw_timeline]
import matplotlib.pyplot as plt

# The .json merges the events of one microsecond into one point, so how many points it has
# depends on the machine's speed; the raw events, in the order they happened, give the same
# curve with a deterministic x axis: the number of memory events so far. An INCREMENT_VERSION
# (an in-place write) is two raw rows, the old version's bytes out and the new one's in: one event.
order = [c for c in mp._CATEGORY_TO_INDEX if c is not None and any(category_of[k] == c.name for _, _, _, k in raw)]
names = [c.name for c in order]
curve = {name: [0] for name in names}
change = Counter()
for _, action, size, category in raw:
    change[category_of[category]] += size
    if action_of[action] == "INCREMENT_VERSION" and size < 0:
        continue  # its second row follows
    for name in names:
        curve[name].append(curve[name][-1] + change[name])
    change.clear()
events_n = len(curve[names[0]]) - 1
total = [sum(curve[name][i] for name in names) for i in range(events_n + 1)]
peak = max(range(len(total)), key=total.__getitem__)
print(f"peak: {total[peak]} bytes after memory event {peak} of {events_n}:",
      {name: curve[name][peak] for name in names if curve[name][peak]})
print(f"at the end: {total[-1]} bytes:", {name: curve[name][-1] for name in names if curve[name][-1]})
print("the .json ends in the same sizes:",
      [sizes[-1][mp._CATEGORY_TO_INDEX[c] + 1] for c in order] == [curve[name][-1] for name in names])

colour = {"PARAMETER": "#009E73", "INPUT": "#595959", "ACTIVATION": "#D55E00", "GRADIENT": "#0072B2",
          "AUTOGRAD_DETAIL": "#CC79A7"}
fig, ax = plt.subplots(figsize=(6.4, 3.4))
steps = range(events_n + 1)
bottom = [0] * len(total)
for name in names:
    top = [b + v for b, v in zip(bottom, curve[name], strict=True)]
    ax.fill_between(steps, [b / 1024 for b in bottom], [t / 1024 for t in top], step="post",
                    color=colour[name], label=name.lower().replace("_", " "), linewidth=0)
    bottom = top
ax.set_xlim(0, events_n)
ax.set_ylim(0, None)
ax.set_xlabel("memory events so far (event order, not time)")
ax.set_ylabel("CPU memory (KiB)")
ax.legend(loc="upper left", bbox_to_anchor=(1, 1), frameon=False, reverse=True)
ax.spines[["top", "right"]].set_visible(False)
fig.savefig("memory-timeline.svg")
# --8<-- [end:draw_timeline]

# --8<-- [start:html]
import base64
import re

with warnings.catch_warnings():
    warnings.simplefilter("ignore", FutureWarning)
    prof.export_memory_timeline("memory.html", device="cpu")
with open("memory.html") as f:
    html = f.read()
print("memory.html starts:", html.splitlines()[0], " title:", re.search("<title>(.*)</title>", html)[1])
images = re.findall(r"<img src='data:image/png;base64,([^']*)'>", html)
print("images:", len(images), " a PNG:", base64.b64decode(images[0])[:8] == b"\x89PNG\r\n\x1a\n")
plt.close("all")
# --8<-- [end:html]
