"""pin_memory=True on a machine without an accelerator."""

# --8<-- [start:pin_cpu]
import threading
import warnings

import torch
from torch.utils.data import DataLoader, TensorDataset
from torch.utils.data._utils.pin_memory import _pin_memory_loop


def pin_threads():
    """Threads of this process that run _pin_memory_loop."""
    return sum(getattr(t, "_target", None) is _pin_memory_loop for t in threading.enumerate())


with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always", UserWarning)  # the warning DataLoader gives, even if it was shown before
    loader = DataLoader(TensorDataset(torch.arange(4.0)), batch_size=2, num_workers=1, pin_memory=True)
    it = iter(loader)
    (batch,) = next(it)
print("accelerator available:", torch.accelerator.is_available())
for w in caught:
    print(f"{w.category.__name__}: {w.message}")
print("threads running _pin_memory_loop:", pin_threads())
print("batch.is_pinned():", batch.is_pinned())
del it
# --8<-- [end:pin_cpu]
