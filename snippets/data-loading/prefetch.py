"""prefetch_factor, in-flight batches, persistent_workers."""

# --8<-- [start:in_flight]
import multiprocessing as mp

import torch
from torch.utils.data import DataLoader, Dataset, Sampler, get_worker_info

mp.set_start_method("fork", force=True)  # these examples rely on fork (macOS defaults to spawn)

torch.manual_seed(0)


class Numbers(Dataset):
    def __init__(self, n):
        self.n = n

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        return i


class CountingSampler(Sampler):
    """Counts, in the main process, the indices the loader has drawn for its workers."""

    def __init__(self, n):
        self.n, self.drawn = n, 0

    def __len__(self):
        return self.n

    def __iter__(self):
        for i in range(self.n):
            self.drawn += 1
            yield i


for workers, prefetch in ((2, 2), (2, 4), (1, 3)):
    sampler = CountingSampler(64)
    loader = DataLoader(Numbers(64), batch_size=1, sampler=sampler, num_workers=workers,
                        prefetch_factor=prefetch)
    it = iter(loader)
    first = next(it)
    print(
        f"num_workers={workers} prefetch_factor={prefetch}: after one batch was taken, "
        f"{sampler.drawn} indices were sent "
        f"(1 consumed + {sampler.drawn - 1} in flight; "
        f"num_workers * prefetch_factor = {workers * prefetch})"
    )
    del it
# --8<-- [end:in_flight]

# --8<-- [start:prefetch_error]
try:
    DataLoader(Numbers(4), num_workers=0, prefetch_factor=2)
except ValueError as e:
    print("ValueError:", e)
print("default prefetch_factor with workers:", DataLoader(Numbers(4), num_workers=2).prefetch_factor)
print("default prefetch_factor without:     ", DataLoader(Numbers(4), num_workers=0).prefetch_factor)
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


class Noted(Dataset):
    note = "as forked"

    def __len__(self):
        return 2

    def __getitem__(self, i):
        return self.note


for persistent in (False, True):
    dataset = Noted()
    loader = DataLoader(dataset, batch_size=None, num_workers=2,
                        persistent_workers=persistent)
    first = list(loader)
    dataset.note = "changed by the main process"  # between two epochs
    print(f"persistent_workers={persistent}: epoch 0 {first},\n  epoch 1 {list(loader)}")
    del loader
# --8<-- [end:persistent]
