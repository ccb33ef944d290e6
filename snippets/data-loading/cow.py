"""Copy-on-access: a list of Python objects in a Dataset is copied into every forked worker."""

# --8<-- [start:cow_setup]
import multiprocessing as mp
import os

import numpy as np
import psutil
import torch
from torch.utils.data import DataLoader, Dataset, get_worker_info

mp.set_start_method("fork", force=True)  # these examples rely on fork (macOS defaults to spawn)

torch.manual_seed(0)
N = 2_000_000  # 2 million items


def memory_kb():
    """(USS, PSS) of this process in kB, from /proc/self/smaps_rollup (Linux)."""
    if not os.path.exists("/proc/self/smaps_rollup"):  # macOS has no PSS: psutil's USS for both
        uss = psutil.Process().memory_full_info().uss // 1024
        return uss, uss
    fields = {}
    with open("/proc/self/smaps_rollup") as f:
        for line in f:
            parts = line.split()
            if len(parts) == 3 and parts[2] == "kB":
                fields[parts[0].rstrip(":")] = int(parts[1])
    return fields["Private_Clean"] + fields["Private_Dirty"], fields["Pss"]


class Touching(Dataset):
    """Item w makes worker w read every element of self.items once; returns its memory growth."""

    def __init__(self, items):
        self.items = items

    def __len__(self):
        return 2

    def __getitem__(self, i):
        uss0, pss0 = get_worker_info().dataset.start
        total = 0.0
        for x in self.items:  # only reads: `x` takes a reference to each item
            total += x
        uss1, pss1 = memory_kb()
        return torch.tensor([uss1 - uss0, pss1 - pss0], dtype=torch.int64)


both_started = mp.Barrier(2)  # created before the workers are forked: they share it


def record_start(worker_id):
    # Measure once both workers exist: forking the second shares the main process's pages once
    # more, which would lower the PSS of a worker that had measured itself before.
    both_started.wait(timeout=60)
    get_worker_info().dataset.start = memory_kb()


def growth_per_worker(items, dataset_class=Touching):
    loader = DataLoader(
        dataset_class(items), batch_size=None, num_workers=2, worker_init_fn=record_start, sampler=[0, 1]
    )
    return [row.tolist() for row in loader]  # [USS growth kB, PSS growth kB] per worker


# --8<-- [end:cow_setup]

# --8<-- [start:cow_list]
as_list = [float(i) for i in range(N)]  # 2 million float objects + the list's array of 2 million pointers
# A float is 24 bytes; CPython's small-object allocator gives it a 32-byte block (sizes round up to 16).
objects_kb = N * 32 / 1024
for w, (uss, pss) in enumerate(growth_per_worker(as_list)):
    print(f"list, worker {w}: USS growth / objects: {uss / objects_kb:.2f} (measured; claim: between 0.5 and 1.5)")
    print(f"list, worker {w}: PSS growth / objects: {pss / objects_kb:.2f} (measured; claim: > 0.3)")
same = [1.5] * N  # one float object, and 2 million pointers to it
pointers_kb = N * 8 / 1024
for w, (uss, _pss) in enumerate(growth_per_worker(same)):
    print(f"one float repeated, worker {w}: USS growth / pointers: {uss / pointers_kb:.2f} (measured; claim: < 0.25)")
# --8<-- [end:cow_list]

# --8<-- [start:gc]
import gc  # noqa: E402


class Collecting(Touching):
    """Item w makes worker w run a full garbage collection, reading no item; returns its memory growth."""

    def __getitem__(self, i):
        uss0, pss0 = get_worker_info().dataset.start
        gc.collect()
        uss1, pss1 = memory_kb()
        return torch.tensor([uss1 - uss0, pss1 - pss0], dtype=torch.int64)


M = 1_000_000
as_lists = [[i] for i in range(M)]  # 1 million small lists: containers the collector tracks
for w, (uss, _pss) in enumerate(growth_per_worker(as_lists, Collecting)):
    print(f"gc.collect(), worker {w}: USS growth per list (bytes): {round(uss * 1024 / M)} (measured; claim: > 32)")
gc.freeze()  # everything alive now moves to a permanent generation that collections skip
try:
    frozen = growth_per_worker(as_lists, Collecting)  # the workers are forked while it is frozen
finally:
    gc.unfreeze()
for w, (uss, _pss) in enumerate(frozen):
    print(f"after gc.freeze(), worker {w}: USS growth per list (bytes): {round(uss * 1024 / M)} (measured; claim: < 8)")
del as_lists
# --8<-- [end:gc]

# --8<-- [start:cow_fixed]
as_array = np.arange(N, dtype=np.float64)  # one buffer of 16 MB: no object per item
as_tensor = torch.arange(N, dtype=torch.float64)
array_kb = as_array.nbytes / 1024


class TouchingArray(Touching):
    def __getitem__(self, i):
        uss0, pss0 = get_worker_info().dataset.start
        total = float(self.items.sum())  # reads every element
        for j in range(0, N, 1000):  # and indexes it item by item, too
            total += float(self.items[j])
        uss1, pss1 = memory_kb()
        return torch.tensor([uss1 - uss0, pss1 - pss0], dtype=torch.int64)


for name, items in (("numpy array", as_array), ("tensor", as_tensor)):
    loader = DataLoader(
        TouchingArray(items), batch_size=None, num_workers=2, worker_init_fn=record_start, sampler=[0, 1]
    )
    for w, (uss, _pss) in enumerate(row.tolist() for row in loader):
        print(f"{name}, worker {w}: USS growth / data size: {uss / array_kb:.2f} (measured; claim: < 0.25)")
# --8<-- [end:cow_fixed]

# --8<-- [start:refcount]
import sys  # noqa: E402

few = [float(i) for i in range(1000)]
item = few[123]
before = sys.getrefcount(item)
view = [x for x in few[100:200]]  # reading the items takes references
print("refcount of one item, before and while read:", before, sys.getrefcount(item))
del view
print("after:", sys.getrefcount(item))
print(f"a float object: {float.__basicsize__} bytes, of which the header (refcount, type) is {object.__basicsize__}")
# --8<-- [end:refcount]
