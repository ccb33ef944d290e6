"""vmap's randomness= flag: error, same, different."""
# ruff: noqa: E402  (each region is a block of the page; its imports open it)
import torch

torch.manual_seed(0)
torch.set_num_threads(1)

# --8<-- [start:modes]
import torch
from torch.func import vmap


def add_noise(row):  # row has 4 elements
    return row + torch.rand(4)


def seeded(fn, *args, **kwargs):
    torch.manual_seed(0)
    return fn(*args, **kwargs)


rows = torch.zeros(3, 4)
for mode in ["error", "same", "different"]:
    try:
        print(f"randomness={mode!r}:\n{seeded(vmap(add_noise, randomness=mode), rows)}")
    except RuntimeError as e:
        print(f"randomness={mode!r}: RuntimeError: {e}")
same = seeded(vmap(add_noise, randomness="same"), rows)
different = seeded(vmap(add_noise, randomness="different"), rows)
print("'same' is one draw for one example:",
      torch.equal(same[0], seeded(torch.rand, 4)))
print("'different' is one draw for the whole batch:",
      torch.equal(different, seeded(torch.rand, 3, 4)))


def loop(fn, batch):  # the same function, one example at a time
    return torch.stack([fn(row) for row in batch])


def add_two_noises(row):  # two draws per example
    return row + torch.rand(4) + 10 * torch.rand(4)


for fn in [add_noise, add_two_noises]:
    batched = seeded(vmap(fn, randomness="different"), rows)
    print(f"{fn.__name__}: vmap 'different' == seeded loop:",
          torch.equal(batched, seeded(loop, fn, rows)))
# --8<-- [end:modes]

# --8<-- [start:dropout]
import torch.nn.functional as F

wide = torch.zeros(3, 8)
for mode in ["different", "same"]:
    dropped = seeded(vmap(lambda r: F.dropout(r + 1, 0.5), randomness=mode), wide)
    zero_or_two = bool(((dropped == 0) | (dropped == 2)).all())
    one_mask = all(torch.equal(row, dropped[0]) for row in dropped)
    print(f"dropout, {mode!r}:".ljust(24), "each value 0 or 2:", zero_or_two,
          "| all rows one mask:", one_mask)
buffer = torch.zeros(4)  # created outside vmap: one tensor for every example
try:
    vmap(lambda r: r + buffer.uniform_(), randomness="different")(rows)
except RuntimeError as e:
    print("in-place random on an unbatched tensor: RuntimeError:", e)
# --8<-- [end:dropout]
