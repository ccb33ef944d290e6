"""Row: DataLoader workers' memory grows (copy-on-access of Python objects)."""
# --8<-- [start:dl_growth]
import numpy as np
import torch
from torch.utils.data import DataLoader, Dataset


def uss_kb():
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
        total = sum(float(x) for x in self.items[k * n:(k + 1) * n])  # only reads
        return torch.tensor(uss_kb() - self.start)


N = 1_000_000
for name, items in (("list of floats", [float(i) for i in range(N)]),
                    ("numpy array", np.arange(N, dtype=np.float64))):
    loader = DataLoader(Chunks(items), batch_size=None, num_workers=1)
    growth = [int(g) * 1024 for g in loader]        # bytes, after each quarter was read
    claim = "> 16" if name.startswith("list") else "< 8"
    print(f"{name}: worker grew by {growth[-1] / N:.1f} bytes per item read "
          f"(measured; claim: {claim})")
    if name.startswith("list"):
        print(f"{name}: grew after every quarter read: {all(b > a for a, b in zip(growth, growth[1:]))}")
# --8<-- [end:dl_growth]
