"""Seeds in DataLoader workers: torch, random, NumPy's global RNG and NumPy Generators."""

# --8<-- [start:seeds]
import multiprocessing as mp
import random

import numpy as np
import torch
from torch.utils.data import DataLoader, Dataset, get_worker_info

mp.set_start_method("fork", force=True)  # these examples rely on fork (macOS defaults to spawn)

torch.manual_seed(0)


class Draws(Dataset):
    """Item i: which worker, that worker's seed, and one draw from each RNG."""

    def __init__(self):
        self.rng = np.random.default_rng(1234)  # made once, in the main process

    def __len__(self):
        return 4

    def __getitem__(self, i):
        info = get_worker_info()
        return {
            "worker": info.id,
            "torch": round(torch.rand(()).item(), 4),
            "random": round(random.random(), 4),
            "np.random": round(float(np.random.rand()), 4),
            "default_rng from __init__": round(float(self.rng.random()), 4),
        }


loader = DataLoader(Draws(), batch_size=None, num_workers=2)
for item in loader:
    print(item)
# --8<-- [end:seeds]


# --8<-- [start:seed_formula]
class SeedOf(Dataset):
    def __len__(self):
        return 2

    def __getitem__(self, i):
        info = get_worker_info()
        return info.id, info.seed, torch.initial_seed()


g = torch.Generator().manual_seed(7)
for _ in range(2):
    # base_seed is drawn from the loader's generator each time an iterator is made.
    rows = list(DataLoader(SeedOf(), batch_size=None, num_workers=2, generator=g))
    base = rows[0][1] - rows[0][0]
    print(
        "epoch: seed - worker id is the same for both workers:",
        all(seed - wid == base for wid, seed, _ in rows),
        "| torch.initial_seed() == info.seed:",
        all(seed == init for _, seed, init in rows),
    )
g1 = torch.Generator().manual_seed(7)
expected = int(torch.empty((), dtype=torch.int64).random_(generator=g1).item())
rows = list(DataLoader(SeedOf(), batch_size=None, num_workers=2, generator=torch.Generator().manual_seed(7)))
print("base_seed is the first int64 the generator draws:", rows[0][1] - rows[0][0] == expected)


def global_rng_moved(make_loader):
    """Does making one iterator of this loader change the global generator's draws?"""
    with torch.random.fork_rng(devices=[]):  # the global state is restored afterwards
        torch.manual_seed(0)
        plain = torch.rand(3)
        torch.manual_seed(0)
        iter(make_loader())
        return not torch.equal(torch.rand(3), plain)


print("iter(loader), no workers, moves the global generator:",
      global_rng_moved(lambda: DataLoader(range(4))))
own = torch.Generator()
print("with the loader's own generator= (and shuffle=True):",
      global_rng_moved(lambda: DataLoader(range(4), shuffle=True, generator=own)))
# --8<-- [end:seed_formula]


# --8<-- [start:seed_fix]
def seed_numpy_generator(worker_id):
    info = get_worker_info()
    info.dataset.rng = np.random.default_rng(info.seed)  # this worker's copy of the dataset


fixed = DataLoader(Draws(), batch_size=None, num_workers=2, worker_init_fn=seed_numpy_generator)
for item in fixed:
    print(item["worker"], "default_rng after worker_init_fn:", item["default_rng from __init__"])
# --8<-- [end:seed_fix]
