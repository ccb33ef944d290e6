"""Mistakes readers make with DataLoader workers, each reproduced, and the fix."""

# --8<-- [start:local_spawn]
import gc
import pickle

import torch
from torch.utils.data import DataLoader, Dataset, TensorDataset, default_collate

torch.manual_seed(0)
data = TensorDataset(torch.arange(8.0))


def make_loader(context):
    def collate(batch):  # a local function: fine with fork, not with spawn
        return default_collate(batch)[0] * 10

    return DataLoader(data, batch_size=4, num_workers=1, collate_fn=collate, multiprocessing_context=context)


print("fork: ", next(iter(make_loader("fork"))))
try:
    next(iter(make_loader("spawn")))
except (AttributeError, pickle.PicklingError) as e:
    print(f"spawn: {type(e).__name__}: {e}")
# --8<-- [end:local_spawn]

# --8<-- [start:local_fix]
for fn in (default_collate, lambda batch: batch):
    try:
        pickle.dumps(fn)
        print(f"{fn.__qualname__}: pickles by reference ({fn.__module__}.{fn.__qualname__})")
    except (AttributeError, pickle.PicklingError) as e:
        print(f"{fn.__qualname__}: {type(e).__name__}: {e}")
# --8<-- [end:local_fix]


# --8<-- [start:non_tensor]
class Record:
    def __init__(self, i):
        self.i = i


class Records(Dataset):
    def __len__(self):
        return 4

    def __getitem__(self, i):
        return Record(i)


try:
    next(iter(DataLoader(Records(), batch_size=2)))
except TypeError as e:
    print("TypeError:", e)
batch = next(iter(DataLoader(Records(), batch_size=2, collate_fn=lambda b: torch.tensor([r.i for r in b]))))
print("with a collate_fn that builds a tensor:", batch)
# --8<-- [end:non_tensor]


# --8<-- [start:ragged]
class Ragged(Dataset):
    def __len__(self):
        return 4

    def __getitem__(self, i):
        return torch.ones(i + 1)


try:
    next(iter(DataLoader(Ragged(), batch_size=2)))
except RuntimeError as e:
    print("RuntimeError:", e)


def pad(batch):
    return torch.nn.utils.rnn.pad_sequence(batch, batch_first=True)


print("padded:", next(iter(DataLoader(Ragged(), batch_size=2, collate_fn=pad))))
# --8<-- [end:ragged]


# --8<-- [start:worker_error]
class Broken(Dataset):
    def __len__(self):
        return 4

    def __getitem__(self, i):
        if i == 2:
            raise ValueError(f"bad sample {i}")
        return i


try:
    list(DataLoader(Broken(), batch_size=None, num_workers=2))
except ValueError as e:
    first, *rest = str(e).splitlines()
    print("ValueError:", first)
    print("  last line of the worker's traceback:", rest[-1])
gc.collect()  # the traceback's frames held the loader's iterator, and its workers with it: end them now
# --8<-- [end:worker_error]
