"""pin_memory=True on a machine without an accelerator."""

# --8<-- [start:pin_cpu]
import warnings

import torch
from torch.utils.data import DataLoader, TensorDataset

with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    loader = DataLoader(TensorDataset(torch.arange(4.0)), batch_size=2, pin_memory=True)
    (batch,) = next(iter(loader))
print("accelerator available:", torch.accelerator.is_available())
for w in caught:
    print(f"{w.category.__name__}: {w.message}")
print("batch.is_pinned():", batch.is_pinned())
# --8<-- [end:pin_cpu]
