"""Row 1: memory that grows until OOM."""
# --8<-- [start:setup]
import gc
import weakref

import torch
from torch import nn
from torch.multiprocessing.reductions import StorageWeakRef

torch.manual_seed(0)
torch.set_printoptions(precision=4)
# --8<-- [end:setup]

# --8<-- [start:growth_repro]
torch.manual_seed(0)
def saved_tensors(t):
    """Walk t's autograd graph: (node name, attribute, tensor) for every saved tensor."""
    found, seen, stack = [], set(), [t.grad_fn]
    while stack:
        node = stack.pop()
        if node is None or node in seen:
            continue
        seen.add(node)
        for name in dir(node):
            if name.startswith("_saved_"):
                value = getattr(node, name)
                if isinstance(value, torch.Tensor):
                    found.append((node.name(), name, value))
        stack.extend(fn for fn, _ in node.next_functions)
    return found


def held_bytes(items, skip):
    """Bytes of distinct storages held by items: the tensors and everything their graphs save."""
    storages = {}
    for item in items:
        if isinstance(item, torch.Tensor):
            for t in [item] + [t for _, _, t in saved_tensors(item)]:
                key = StorageWeakRef(t.untyped_storage())
                if key not in skip:
                    storages[key] = t.untyped_storage().nbytes()
    return sum(storages.values())


model = nn.Sequential(nn.Linear(256, 1024), nn.ReLU(), nn.Linear(1024, 10))
params = {StorageWeakRef(p.untyped_storage()) for p in model.parameters()}
batches = [torch.randn(128, 256) for _ in range(4)]
targets = [torch.randint(0, 10, (128,)) for _ in range(4)]


def validate(keep):
    losses = []
    for x, y in zip(batches, targets):
        loss = nn.functional.cross_entropy(model(x), y)
        losses.append(keep(loss))
        print(f"  step {len(losses)}: losses holds {held_bytes(losses, params):,} bytes")
    return losses


print("losses.append(loss):")
held = validate(lambda loss: loss)
# --8<-- [end:growth_repro]

# --8<-- [start:growth_diagnose]
print("held[0].grad_fn:", held[0].grad_fn.name())
for node, attr, t in sorted(saved_tensors(held[0]), key=lambda r: (r[0], r[1])):
    is_param = StorageWeakRef(t.untyped_storage()) in params
    print(f"  {node:20} {attr:20} {str(tuple(t.shape)):12} {t.untyped_storage().nbytes():>7,}"
          + ("  (a parameter)" if is_param else ""))
# --8<-- [end:growth_diagnose]

# --8<-- [start:growth_fix]
del held
print("losses.append(loss.item()):")
validate(lambda loss: loss.item())
print("losses.append(loss.detach()):")
validate(lambda loss: loss.detach())
print("under torch.no_grad():")
with torch.no_grad():
    validate(lambda loss: loss)
# --8<-- [end:growth_fix]


# --8<-- [start:predict_empty_cache]
import pathlib
import re

# The caching allocator's constants, from the header this torch ships.
config = pathlib.Path(torch.__file__).parent / "include/c10/core/AllocatorConfig.h"
k = {name: int(v) for name, v in re.findall(r"constexpr size_t (k\w+) = (\d+);", config.read_text())}
block = -(-(64 << 20) // k["kMinBlockSize"]) * k["kMinBlockSize"]   # rounded request
assert block >= k["kMinLargeAlloc"]          # large enough for a segment of its own:
segment = -(-block // k["kRoundLarge"]) * k["kRoundLarge"]          # rounded to kRoundLarge
held = 4 * block                             # the list keeps all four blocks in use
print(f"4 x 64 MiB held in a list: allocated {held:,}, reserved {4 * segment:,}")
print(f"empty_cache, list alive: allocated {held:,}, reserved {4 * segment:,}")
print(f"list cleared: allocated {0:,}, reserved {4 * segment:,}")
print(f"empty_cache, list cleared: allocated {0:,}, reserved {0:,}")
# A step that allocates the same four tensors again finds their segments in the cache,
# unless empty_cache() gave them back: then each step asks the driver for all four again.
steps = 3
print(f"{steps} steps, empty_cache never: cudaMalloc calls {4:,}, cudaFree calls {0:,}")
print(f"{steps} steps, empty_cache every step: cudaMalloc calls {steps * 4:,},"
      f" cudaFree calls {steps * 4:,}")
# --8<-- [end:predict_empty_cache]

if not torch.cuda.is_available():   # the region below is a GPU-only block
    raise SystemExit(0)

# --8<-- [start:claims_empty_cache]
def report(label):
    print(f"{label}: allocated {torch.cuda.memory_allocated():,}, "
          f"reserved {torch.cuda.memory_reserved():,}")


kept = [torch.empty(64 << 20, dtype=torch.uint8, device="cuda") for _ in range(4)]
report("4 x 64 MiB held in a list")
torch.cuda.empty_cache()
report("empty_cache, list alive")
kept.clear()
report("list cleared")
torch.cuda.empty_cache()
report("empty_cache, list cleared")


def driver_calls():                          # the allocator's own count of driver calls
    stats = torch.cuda.memory_stats()
    return stats["num_device_alloc"], stats["num_device_free"]


for every_step in (False, True):
    torch.cuda.empty_cache()
    before = driver_calls()
    for step in range(3):
        work = [torch.empty(64 << 20, dtype=torch.uint8, device="cuda") for _ in range(4)]
        del work
        if every_step:
            torch.cuda.empty_cache()
    allocs, frees = (after - start for start, after in zip(before, driver_calls()))
    print(f"3 steps, empty_cache {'every step' if every_step else 'never'}: "
          f"cudaMalloc calls {allocs:,}, cudaFree calls {frees:,}")
# --8<-- [end:claims_empty_cache]
