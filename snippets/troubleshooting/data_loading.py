"""Row: DataLoader workers' memory grows (copy-on-access of Python objects)."""

# --8<-- [start:dl_growth]
import multiprocessing as mp
import os

import numpy as np
import psutil
import torch
from torch.utils.data import DataLoader, Dataset

mp.set_start_method("fork", force=True)  # these examples rely on fork (macOS defaults to spawn)


def uss_kb():
    if not os.path.exists("/proc/self/smaps_rollup"):  # macOS: psutil's USS
        return psutil.Process().memory_full_info().uss // 1024
    with open("/proc/self/smaps_rollup") as f:
        rows = dict(line.split()[:2] for line in f if line.endswith("kB\n"))
    return int(rows["Private_Clean:"]) + int(rows["Private_Dirty:"])


class Chunks(Dataset):
    """Item k reads the k-th quarter of self.items; returns the worker's USS growth since item 0."""

    def __init__(self, items):
        self.items, self.start = items, None

    def __len__(self):
        return 4

    def __getitem__(self, k):
        self.start = self.start or uss_kb()
        n = len(self.items) // 4
        for x in self.items[k * n : (k + 1) * n]:  # only reads
            float(x)
        return torch.tensor(uss_kb() - self.start)


N = 2_000_000  # enough items that the worker's fixed start-up costs weigh little per item
for name, items in (("list of floats", [float(i) for i in range(N)]), ("numpy array", np.arange(N, dtype=np.float64))):
    loader = DataLoader(Chunks(items), batch_size=None, num_workers=1)
    growth = [int(g) * 1024 for g in loader]  # bytes, after each quarter was read
    claim = "> 16" if name.startswith("list") else "< 8"
    print(f"{name}, worker growth per item read (bytes): {growth[-1] / N:.1f} (measured; claim: {claim})")
    if name.startswith("list"):
        grew = all(b > a for a, b in zip(growth, growth[1:], strict=False))
        print(f"{name}: grew after every quarter read: {grew}")
# --8<-- [end:dl_growth]
