"""The CUDA caching allocator: rounding, segments, fragmentation, empty_cache, snapshots.

Only the `rounding_model` region runs without a GPU; the other regions need CUDA.
"""
import torch

# --8<-- [start:rounding_model]
# The allocator's size rules (constants from c10/core/AllocatorConfig.h and
# CUDACachingAllocator.cpp), applied to shapes built on the meta device.
MIN_BLOCK = 512              # kMinBlockSize: every request rounds up to a multiple of 512 B
SMALL_SIZE = 1 << 20         # kSmallSize: requests up to 1 MiB use the small pool
SMALL_BUFFER = 2 << 20       # kSmallBuffer: a small-pool segment is 2 MiB
LARGE_BUFFER = 20 << 20      # kLargeBuffer: 1-10 MiB requests get a 20 MiB segment
MIN_LARGE_ALLOC = 10 << 20   # kMinLargeAlloc
ROUND_LARGE = 2 << 20        # kRoundLarge: bigger segments round up to 2 MiB


def block_bytes(nbytes):
    return max(MIN_BLOCK, -(-nbytes // MIN_BLOCK) * MIN_BLOCK)


def segment_bytes(block):
    if block <= SMALL_SIZE:
        return SMALL_BUFFER
    if block < MIN_LARGE_ALLOC:
        return LARGE_BUFFER
    return -(-block // ROUND_LARGE) * ROUND_LARGE


print(f"{'shape':>16} {'requested':>10} {'block':>10} {'new segment':>12}")
for shape in [(1,), (1000,), (256, 1024), (1000, 1000), (3, 1024, 1024)]:
    t = torch.empty(shape, device="meta")            # no memory behind it
    requested = t.numel() * t.element_size()
    block = block_bytes(requested)
    print(f"{str(shape):>16} {requested:>10} {block:>10} {segment_bytes(block):>12}")
# --8<-- [end:rounding_model]

if not torch.cuda.is_available():   # the regions below are GPU-only blocks
    raise SystemExit(0)

# --8<-- [start:cuda_rounding]
def show(label):
    s = torch.cuda.memory_stats()        # {} until CUDA is initialised, hence .get
    print(f"{label:18} requested {s.get('requested_bytes.all.current', 0):>9}"
          f"  allocated {s.get('allocated_bytes.all.current', 0):>9}"
          f"  reserved {s.get('reserved_bytes.all.current', 0):>9}"
          f"  segments {s.get('segment.all.current', 0)}")


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
print("inactive split bytes:", torch.cuda.memory_stats()["inactive_split_bytes.all.current"])
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
    live = [blk for blk in seg["blocks"] if blk["state"] == "active_allocated"]
    # each live block: (size, was it allocated inside make_cache?)
    print(seg["segment_type"], "segment of", seg["total_size"], "bytes;",
          "live blocks:", [(blk["size"], any(f["name"] == "make_cache" for f in blk["frames"]))
                           for blk in live])
print("actions recorded:", sorted({e["action"] for e in snap["device_traces"][0]}))
# --8<-- [end:cuda_snapshot]
