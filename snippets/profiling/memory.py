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
