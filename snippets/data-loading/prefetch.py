"""prefetch_factor, in-flight batches, persistent_workers."""

# --8<-- [start:in_flight]
import multiprocessing as mp
import time

import torch
from torch.utils.data import DataLoader, Dataset, get_worker_info

mp.set_start_method("fork", force=True)  # these examples rely on fork (macOS defaults to spawn)

torch.manual_seed(0)


class Logged(Dataset):
    """Records, in the main process, each index a worker was asked for (through a shared list)."""

    def __init__(self, n):
        self.n = n
        self.asked = torch.full((n,), -1, dtype=torch.int64).share_memory_()

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        self.asked[i] = 1
        return i


def requested(ds):
    return int((ds.asked >= 0).sum())


for workers, prefetch in ((2, 2), (2, 4), (1, 3)):
    ds = Logged(64)
    it = iter(DataLoader(ds, batch_size=1, num_workers=workers, prefetch_factor=prefetch))
    first = next(it)
    deadline = time.monotonic() + 10  # wait for the workers (or give up), then a little more
    while requested(ds) <= workers * prefetch and time.monotonic() < deadline:
        time.sleep(0.01)
    time.sleep(0.2)
    print(
        f"num_workers={workers} prefetch_factor={prefetch}: after one batch was taken, "
        f"{requested(ds)} indices were requested (1 consumed + {requested(ds) - 1} in flight; "
        f"num_workers * prefetch_factor = {workers * prefetch})"
    )
    del it
# --8<-- [end:in_flight]

# --8<-- [start:prefetch_error]
try:
    DataLoader(Logged(4), num_workers=0, prefetch_factor=2)
except ValueError as e:
    print("ValueError:", e)
print("default prefetch_factor with workers:", DataLoader(Logged(4), num_workers=2).prefetch_factor)
print("default prefetch_factor without:     ", DataLoader(Logged(4), num_workers=0).prefetch_factor)
# --8<-- [end:prefetch_error]


# --8<-- [start:persistent]
class Counting(Dataset):
    """Each worker counts the items it produced, in its own memory (a plain attribute)."""

    def __init__(self):
        self.made = 0

    def __len__(self):
        return 4

    def __getitem__(self, i):
        self.made += 1
        return get_worker_info().id, self.made


for persistent in (False, True):
    loader = DataLoader(Counting(), batch_size=None, num_workers=2, persistent_workers=persistent)
    epochs = [sorted(loader) for _ in range(3)]
    print(f"persistent_workers={persistent}:")
    for n, epoch in enumerate(epochs):
        print(f"  epoch {n}: (worker, items it had made so far) = {epoch}")
    del loader
# --8<-- [end:persistent]
