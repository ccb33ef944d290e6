"""export_chrome_trace: the file, its event kinds, an op event's fields, the forward-backward flows."""
# ruff: noqa: E402, I001  (each region is a block of the page; its imports open it)
from step import (  # the page's first block
    Counter,
    ProfilerActivity,
    profile,
    record_function,
    train_step,
)

# --8<-- [start:export]
import json
import os

with profile(activities=[ProfilerActivity.CPU], record_shapes=True) as prof:
    with record_function("my_step"):
        train_step()
prof.export_chrome_trace("trace.json")
print("trace.json written:", os.path.getsize("trace.json") > 0)
with open("trace.json") as f:
    trace = json.load(f)
print("top-level keys:", sorted(trace))
events = trace["traceEvents"]
# Metadata ('M') names each process and thread: how many depends on the threads the process has.
print("metadata events (ph 'M'), their names:", sorted({e["name"] for e in events if e["ph"] == "M"}))
print(f"{sum(e['ph'] != 'M' for e in events)} other trace events; by phase and category:")
for (ph, cat), n in sorted(Counter((e["ph"], e.get("cat", "-")) for e in events if e["ph"] != "M").items()):
    print(f"  ph={ph!r:<4} cat={cat!r:<18} {n:>4}")
print("names of those with no category:", sorted({e["name"] for e in events if "cat" not in e and e["ph"] != "M"}))
# --8<-- [end:export]

# --8<-- [start:op_event]
addmm = next(e for e in events if e.get("name") == "aten::addmm")
print("fields:", sorted(addmm))
print("ts and dur are microseconds (floats); pid and tid are the process and thread ids")
for key, value in addmm["args"].items():
    # ids count up over the whole process: how many ops ran before this profile
    print(f"  args[{key!r}]: {'<int>' if key in ('External id', 'Sequence number') else value}")
# --8<-- [end:op_event]

# --8<-- [start:flows]
op_at = {(e["tid"], e["ts"]): e["name"] for e in events if e["ph"] == "X"}
starts = {e["id"]: op_at[(e["tid"], e["ts"])] for e in events if e["ph"] == "s"}
ends = {e["id"]: op_at[(e["tid"], e["ts"])] for e in events if e["ph"] == "f"}
print("flow events link a forward op to the backward node autograd made from it:")
for (forward, backward), n in sorted(Counter((starts[i], ends[i]) for i in starts).items()):
    print(f"  {n} x  {forward:<26} -> {backward}")
print("flows from a CPU op to a GPU kernel (cat 'ac2g'):", sum(e.get("cat") == "ac2g" for e in events))
# --8<-- [end:flows]
