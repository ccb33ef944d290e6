"""The CUDA caching allocator: rounding, segments, fragmentation, empty_cache, snapshots.

The regions up to the SystemExit run anywhere: they read the allocator's constants
from the installed header and predict, with the allocator's rules, what the GPU-only
regions below them print on a GPU. The GPU-only regions need CUDA.
"""
import torch

# --8<-- [start:rounding_model]
import pathlib
import re

# The size constants as the installed torch ships them (c10/core/AllocatorConfig.h).
header = pathlib.Path(torch.__file__).parent / "include/c10/core/AllocatorConfig.h"
source = header.read_text()
rules = {name: int(value) for name, value in re.findall(r"constexpr size_t (k\w+) = (\d+);", source)}
# The segment size for requests between kSmallSize and kMinLargeAlloc, a default member.
rules["large_segment_size"] = int(re.search(r"large_segment_size_\{(\d+)\}", source)[1])
for name, value in rules.items():
    print(f"{name}: {value:,}")


def block_bytes(nbytes):
    """Every request rounds up to a multiple of kMinBlockSize (at least one)."""
    unit = rules["kMinBlockSize"]
    return max(unit, -(-nbytes // unit) * unit)


def segment_bytes(block):
    """The size of the segment the allocator asks the driver for when no cached block fits."""
    if block <= rules["kSmallSize"]:
        return rules["kSmallBuffer"]
    if block < rules["kMinLargeAlloc"]:
        return rules["large_segment_size"]
    return -(-block // rules["kRoundLarge"]) * rules["kRoundLarge"]


print(f"{'shape':>16} {'requested':>11} {'block':>11} {'new segment':>12}")
for shape in [(1,), (1000,), (256, 1024), (1000, 1000), (3, 1024, 1024)]:
    t = torch.empty(shape, device="meta")            # no memory behind it
    requested = t.numel() * t.element_size()
    block = block_bytes(requested)
    print(f"{str(shape):>16} {requested:>11,} {block:>11,} {segment_bytes(block):>12,}")
# --8<-- [end:rounding_model]

# --8<-- [start:predict_rounding]
class AllocatorModel:
    """The caching allocator's bookkeeping reduced to its size rules: one device, one stream."""

    def __init__(self):
        self.segments = []   # {"small": bool, "blocks": [[size, requested bytes or None, site]]}
        self.actions = []    # what a memory history would record, in its trace's names

    def malloc(self, nbytes, site=None):
        size = block_bytes(nbytes)
        small = size <= rules["kSmallSize"]          # which pool serves the request
        fits = [(blk[0], s, i) for s, seg in enumerate(self.segments) if seg["small"] == small
                for i, blk in enumerate(seg["blocks"]) if blk[1] is None and blk[0] >= size]
        if fits:                                     # best fit: the smallest free block that fits
            _, s, i = min(fits)
        else:                                        # none: a new segment from the driver
            self.segments.append({"small": small, "blocks": [[segment_bytes(size), None, None]]})
            s, i = len(self.segments) - 1, 0
            self.actions.append("segment_alloc")
        self.actions.append("alloc")
        blocks = self.segments[s]["blocks"]
        rest = blocks[i][0] - size
        if rest >= rules["kMinBlockSize"] if small else rest > rules["kSmallSize"]:
            blocks[i:i + 1] = [[size, nbytes, site], [rest, None, None]]   # split the block
        else:
            blocks[i][1:] = [nbytes, site]
        return blocks[i]

    def free(self, block):
        block[1:] = [None, None]
        self.actions += ["free_requested", "free_completed"]  # one stream: completed at once
        for seg in self.segments:                    # a free block merges with free neighbours
            merged = []
            for blk in seg["blocks"]:
                if merged and merged[-1][1] is None and blk[1] is None:
                    merged[-1][0] += blk[0]
                else:
                    merged.append(blk)
            seg["blocks"] = merged

    def empty_cache(self):                           # only segments with no block in use go
        kept = [seg for seg in self.segments if any(b[1] is not None for b in seg["blocks"])]
        self.actions += ["segment_free"] * (len(self.segments) - len(kept))
        self.segments = kept

    def show(self, label):
        blocks = [blk for seg in self.segments for blk in seg["blocks"]]
        used = [blk for blk in blocks if blk[1] is not None]
        split_free = [blk for seg in self.segments if len(seg["blocks"]) > 1
                      for blk in seg["blocks"] if blk[1] is None]
        print(f"{label}: requested {sum(b[1] for b in used):,}, allocated {sum(b[0] for b in used):,}, "
              f"reserved {sum(b[0] for b in blocks):,}, segments {len(self.segments)}, "
              f"inactive split {sum(b[0] for b in split_free):,}")


model = AllocatorModel()
model.show("start")
a = model.malloc(4)                          # torch.empty(1): 4 bytes
model.show("+ 4 B tensor")
b = model.malloc(1000 * 1000 * 4)            # torch.empty(1000, 1000): 4,000,000 bytes
model.show("+ 4 MB tensor")
model.free(a)
model.free(b)
model.show("after del")
model.empty_cache()
model.show("after empty_cache")
# --8<-- [end:predict_rounding]

# --8<-- [start:predict_fragmentation]
MiB = 1 << 20
model = AllocatorModel()
chunks = [model.malloc(4 * MiB) for _ in range(5)]
model.show("5 x 4 MiB")
for i in (0, 2, 4):
    model.free(chunks[i])
model.show("3 of them freed")
big = model.malloc(8 * MiB)
model.show("+ 8 MiB tensor")
model.empty_cache()
model.show("empty_cache")
model.empty_cache()                          # a 1-byte view still uses big's whole block
model.show("view kept, emptied")
for block in (big, chunks[1], chunks[3]):
    model.free(block)
model.empty_cache()
model.show("all released")
# --8<-- [end:predict_fragmentation]

# --8<-- [start:draw_fragmentation]
import copy

import matplotlib.pyplot as plt

model = AllocatorModel()
stages = []                                  # (what happened, the segments as they were then)
chunks = [model.malloc(4 * MiB) for _ in range(5)]
stages.append(("5 x 4 MiB", copy.deepcopy(model.segments)))
for i in (0, 2, 4):
    model.free(chunks[i])
stages.append(("1st, 3rd, 5th freed", copy.deepcopy(model.segments)))
big = model.malloc(8 * MiB)
stages.append(("+ 8 MiB tensor", copy.deepcopy(model.segments)))

fig, ax = plt.subplots(figsize=(6.4, 3.0))
rows = []                                    # one bar per segment, top to bottom
for label, segments in stages:
    for number, seg in enumerate(segments, 1):
        rows.append((f"{label}: segment {number}", seg["blocks"]))
for y, (name, blocks) in enumerate(rows):
    left = 0
    for size, requested, _ in blocks:
        used = requested is not None
        ax.barh(-y, size / MiB, left=left, height=0.6, color="#C05400" if used else "white",
                edgecolor="#595959", hatch="" if used else "///")
        ax.text(left + size / MiB / 2, -y, f"{size // MiB}", ha="center", va="center",
                color="white" if used else "black", fontweight="bold" if used else "normal")
        left += size / MiB
    print(f"{name}: " + " | ".join(f"{s // MiB} MiB {'used' if r is not None else 'free'}"
                                   for s, r, _ in blocks))
ax.set_yticks([-y for y in range(len(rows))], [name for name, _ in rows])
ax.set_xlabel("MiB into the segment (orange: a live block, hatched: free)")
ax.spines[["top", "right", "left"]].set_visible(False)
ax.tick_params(axis="y", length=0)
fig.savefig("allocator-segments.svg")
# --8<-- [end:draw_fragmentation]

# --8<-- [start:predict_snapshot]
model = AllocatorModel()
cache = model.malloc(3 * MiB, site="make_cache")
scratch = model.malloc(300)
model.free(scratch)
for seg in sorted(model.segments, key=lambda seg: "small" if seg["small"] else "large"):
    live = [(blk[0], blk[2] == "make_cache") for blk in seg["blocks"] if blk[1] is not None]
    total = sum(blk[0] for blk in seg["blocks"])
    print(f"{'small' if seg['small'] else 'large'} segment: {total:,} bytes, live blocks {live}")
documented = re.findall(r'^\s+"(\w+)",?\s+#', torch.cuda.memory._snapshot.__doc__, re.MULTILINE)
assert set(model.actions) <= set(documented), "every name is one the snapshot's trace documents"
print("actions recorded:", sorted(set(model.actions)))
# --8<-- [end:predict_snapshot]

# --8<-- [start:snapshot_api]
import inspect

memory = torch.cuda.memory
for name in ("memory_snapshot", "_snapshot", "_dump_snapshot", "_record_memory_history",
             "memory_cached"):
    warning = getattr(getattr(memory, name), "__deprecated__", None)   # set by @deprecated
    print(f"torch.cuda.memory.{name}: {'deprecated: ' + warning if warning else 'not deprecated'}")
returns = re.findall(r'\)\["(\w+)"\]', inspect.getsource(memory.memory_snapshot))
print("memory_snapshot() returns only   :", sorted(set(returns)))
fields = re.search(r"class Snapshot\(TypedDict\):\n((?:\s+\w+: .*\n)+)", memory._snapshot.__doc__)[1]
print("_snapshot() returns a dict with  :", [line.split(":")[0].strip() for line in fields.splitlines()])
dumps = [line.strip() for line in inspect.getsource(memory._dump_snapshot).splitlines()
         if line.strip().startswith(("s = ", "pickle.dump"))]
print("_dump_snapshot() pickles         :", dumps)
# --8<-- [end:snapshot_api]

if not torch.cuda.is_available():   # the regions below are GPU-only blocks
    raise SystemExit(0)

# --8<-- [start:cuda_rounding]
def show(label):
    s = torch.cuda.memory_stats()        # {} until CUDA is initialised, hence .get
    print(f"{label}: requested {s.get('requested_bytes.all.current', 0):,}, "
          f"allocated {s.get('allocated_bytes.all.current', 0):,}, "
          f"reserved {s.get('reserved_bytes.all.current', 0):,}, "
          f"segments {s.get('segment.all.current', 0)}, "
          f"inactive split {s.get('inactive_split_bytes.all.current', 0):,}")


show("start")
a = torch.empty(1, device="cuda")               # 4 bytes requested
show("+ 4 B tensor")
b = torch.empty(1000, 1000, device="cuda")      # 4,000,000 bytes requested
show("+ 4 MB tensor")
del a, b
show("after del")
torch.cuda.empty_cache()
show("after empty_cache")
# --8<-- [end:cuda_rounding]

# --8<-- [start:cuda_fragmentation]
MiB = 1 << 20
chunks = [torch.empty(4 * MiB, dtype=torch.uint8, device="cuda") for _ in range(5)]
show("5 x 4 MiB")                         # one 20 MiB segment, split in five blocks
chunks[0] = chunks[2] = chunks[4] = None  # free three blocks that are not neighbours
show("3 of them freed")
big = torch.empty(8 * MiB, dtype=torch.uint8, device="cuda")   # 12 MiB free, no 8 MiB hole
show("+ 8 MiB tensor")
torch.cuda.empty_cache()                  # frees only segments with no live block
show("empty_cache")
keep = big[:1]                            # a 1-byte view of the 8 MiB block
del big
torch.cuda.empty_cache()
show("view kept, emptied")
del keep, chunks
torch.cuda.empty_cache()
show("all released")
# --8<-- [end:cuda_fragmentation]

# --8<-- [start:cuda_snapshot]
def make_cache():
    return torch.empty(3 * MiB, dtype=torch.uint8, device="cuda")


torch.cuda.memory._record_memory_history(max_entries=10_000, stacks="python")
cache = make_cache()
scratch = torch.empty(300, dtype=torch.uint8, device="cuda")
del scratch
snap = torch.cuda.memory._snapshot()
torch.cuda.memory._dump_snapshot("snapshot.pickle")   # open it at pytorch.org/memory_viz
torch.cuda.memory._record_memory_history(enabled=None)

for seg in sorted(snap["segments"], key=lambda seg: seg["segment_type"]):
    # each live block: (size, was it allocated inside make_cache?)
    live = [(blk["size"], any(f["name"] == "make_cache" for f in blk["frames"]))
            for blk in seg["blocks"] if blk["state"] == "active_allocated"]
    print(f"{seg['segment_type']} segment: {seg['total_size']:,} bytes, live blocks {live}")
print("actions recorded:", sorted({e["action"] for e in snap["device_traces"][0]}))
# --8<-- [end:cuda_snapshot]
