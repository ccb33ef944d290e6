"""DataLoader worker processes, start methods, and how a batch travels to the main process."""

# --8<-- [start:setup]
import multiprocessing as mp
import os
import warnings

import torch
import torch.multiprocessing as tmp
from torch.utils.data import DataLoader, Dataset, get_worker_info

torch.manual_seed(0)
MAIN_PID = os.getpid()
PLATFORM_DEFAULT = mp.get_start_method()  # before the line below changes it
mp.set_start_method("fork", force=True)  # these examples rely on fork (macOS defaults to spawn)
# Python 3.12+ warns, naming the pid, whenever fork() runs in a process that has threads (torch's own
# count); these examples fork on purpose, so the page keeps that warning out of its outputs.
warnings.filterwarnings("ignore", r"This process \(pid=\d+\) is multi-threaded", DeprecationWarning)
# DataLoader warns when num_workers exceeds the cores this process may use (one core, say); the examples
# use two workers on every machine, so that machine-dependent warning is kept out of their outputs too.
warnings.filterwarnings("ignore", "This DataLoader will create", UserWarning)


class WhoAmI(Dataset):
    """Each item says which worker made it and whether that worker is a separate process."""

    def __len__(self):
        return 8

    def __getitem__(self, i):
        info = get_worker_info()
        return {
            "index": i,
            "worker": -1 if info is None else info.id,
            "own_process": os.getpid() != MAIN_PID,
            "parent_is_main": os.getppid() == MAIN_PID,
        }


# --8<-- [end:setup]

# --8<-- [start:worker_ids]
print("in the main process, get_worker_info():", get_worker_info())
for item in DataLoader(WhoAmI(), batch_size=None, num_workers=0):
    if item["index"] == 0:
        print("num_workers=0:", item)
loader = DataLoader(WhoAmI(), batch_size=None, num_workers=2)
for item in loader:
    print(item)
# --8<-- [end:worker_ids]

# --8<-- [start:start_method]
print(f"default start method on this platform: {PLATFORM_DEFAULT} (measured; claim: one of fork, spawn, forkserver)")
print("start method these examples use:", mp.get_start_method())
print("loader.multiprocessing_context:", loader.multiprocessing_context)
spawned = DataLoader(WhoAmI(), batch_size=None, num_workers=1, multiprocessing_context="spawn")
print("spawn context:", type(spawned.multiprocessing_context).__name__)
# --8<-- [end:start_method]


# --8<-- [start:is_shared]
class Rows(Dataset):
    def __len__(self):
        return 4

    def __getitem__(self, i):
        return torch.full((3,), float(i))


batch_main = next(iter(DataLoader(Rows(), batch_size=2, num_workers=0)))
batch_worker = next(iter(DataLoader(Rows(), batch_size=2, num_workers=1)))
print("num_workers=0: batch.is_shared() =", batch_main.is_shared())
print("num_workers=1: batch.is_shared() =", batch_worker.is_shared())
print("batch from the worker:", batch_worker)
# --8<-- [end:is_shared]

# --8<-- [start:strategies]
print("sharing strategies:", sorted(tmp.get_all_sharing_strategies()))
print("current strategy:  ", tmp.get_sharing_strategy())
# --8<-- [end:strategies]


# --8<-- [start:dev_shm]
class Stamped(Dataset):
    """Item i is a 1 MB tensor whose first value is the producing worker's pid (never printed)."""

    def __len__(self):
        return 4

    def __getitem__(self, i):
        t = torch.zeros(256 * 1024)
        t[0] = os.getpid()
        return t


def shm_names():
    return set(os.listdir("/dev/shm")) if os.path.isdir("/dev/shm") else set()


def new_entries_of(pids, old):
    """Entries new in /dev/shm since `old` that torch named for these worker pids (counted)."""
    prefixes = tuple(f"torch_{pid}_" for pid in pids)
    return sum(name.startswith(prefixes) for name in shm_names() - old)


for strategy in ("file_descriptor", "file_system"):
    tmp.set_sharing_strategy(strategy)
    old = shm_names()  # whatever other processes left there is not counted
    kept = list(DataLoader(Stamped(), batch_size=None, num_workers=2))
    pids = {int(t[0]) for t in kept}
    print(
        f"{strategy:15}: {len(kept)} tensors alive, all shared: {all(t.is_shared() for t in kept)},"
        f" torch_<worker pid>_* entries in /dev/shm: {new_entries_of(pids, old)}"
    )
    del kept
    print(f"{strategy:15}: after del, entries left: {new_entries_of(pids, old)}")
tmp.set_sharing_strategy("file_descriptor")
# --8<-- [end:dev_shm]

# --8<-- [start:pickled]
import io  # noqa: E402
import pickle  # noqa: E402
from multiprocessing.reduction import ForkingPickler  # noqa: E402

big = torch.zeros(1_000_000)  # 4 MB of data
plain = pickle.dumps(big)
buf = io.BytesIO()
ForkingPickler(buf).dump(big)  # what a worker's queue uses
print(f"pickle.dumps:        {len(plain):,} bytes (the {big.nbytes:,} bytes of data, copied)")
# The handle names the socket of multiprocessing's fd sharer, a path under the temp dir: its size varies by machine.
print(f"ForkingPickler.dump, a handle to shared memory (bytes): {len(buf.getvalue())} (measured; claim: < 1000)")
print("big.is_shared() after ForkingPickler:", big.is_shared())
# --8<-- [end:pickled]
