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

# --8<-- [start:hang_timeout]
import time  # noqa: E402


class Stuck(Dataset):
    def __len__(self):
        return 4

    def __getitem__(self, i):
        time.sleep(60)  # a read that never returns: a dead mount, a lock held over fork
        return i


try:
    next(iter(DataLoader(Stuck(), num_workers=1, timeout=2, multiprocessing_context="fork")))
except RuntimeError as e:
    print(f"timeout=2: RuntimeError: {e}")
# --8<-- [end:hang_timeout]

# --8<-- [start:hang_killed]
import os  # noqa: E402
import re  # noqa: E402
import signal  # noqa: E402


class Killed(Dataset):
    def __len__(self):
        return 4

    def __getitem__(self, i):
        os.kill(os.getpid(), signal.SIGKILL)  # what the kernel's out-of-memory killer sends


try:
    next(iter(DataLoader(Killed(), num_workers=1, multiprocessing_context="fork")))
except RuntimeError as e:
    for error in (e, e.__cause__):  # the error, and the one it was raised from
        text = re.sub(r"\d+", "<pid>", str(error), count=1)  # pids differ per run
        print(f"{type(error).__name__}: {text}")
# --8<-- [end:hang_killed]

# --8<-- [start:fd_limit]
import multiprocessing as mp  # noqa: E402
import resource  # noqa: E402


class Small(Dataset):
    def __len__(self):
        return 300

    def __getitem__(self, i):
        return torch.full((4,), float(i))


def open_fds():
    return len(os.listdir("/proc/self/fd"))  # Linux: one entry per open descriptor


def keep_all(limit, results):
    """Keep every tensor the loader returns, with at most `limit` more descriptors open."""
    _, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (open_fds() + limit, hard))  # here only
    kept = []
    try:
        loader = DataLoader(Small(), batch_size=None, num_workers=1, multiprocessing_context="fork")
        for t in loader:
            kept.append(t)
            if len(kept) == 1:
                before = open_fds()  # the loader's own pipes and queues are open by now
            if len(kept) == 101:
                results.put(f"100 more tensors alive: {open_fds() - before} more descriptors")
        results.put(f"all {len(kept)} kept")
    except RuntimeError as e:
        results.put(f"RuntimeError: {e}")


fork = mp.get_context("fork")
results = fork.Queue()
child = fork.Process(target=keep_all, args=(200, results))  # as if `ulimit -n` were low
child.start()
print(results.get(timeout=60))
print(results.get(timeout=60))
child.join()
# --8<-- [end:fd_limit]
