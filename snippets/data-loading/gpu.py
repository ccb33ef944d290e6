"""GPU-only: the pin_memory thread, and CUDA in a forked worker (skipped without CUDA)."""

# --8<-- [start:pin_thread]
import threading

import torch
from torch.utils.data import DataLoader, Dataset, TensorDataset
from torch.utils.data._utils.pin_memory import _pin_memory_loop

if torch.cuda.is_available():
    it = iter(DataLoader(TensorDataset(torch.arange(8.0)), batch_size=4, num_workers=1, pin_memory=True))
    (batch,) = next(it)
    pinning = [t for t in threading.enumerate() if getattr(t, "_target", None) is _pin_memory_loop]
    print("threads running _pin_memory_loop:", len(pinning))
    print("daemon thread:", [t.daemon for t in pinning])
    print("batch.is_pinned():", batch.is_pinned())
    del it
# --8<-- [end:pin_thread]


# --8<-- [start:cuda_fork]
class OnGPU(Dataset):
    def __len__(self):
        return 2

    def __getitem__(self, i):
        return torch.ones(2, device="cuda") * i  # CUDA used inside a forked worker


if torch.cuda.is_available():
    torch.zeros(1, device="cuda")  # the parent initialises CUDA first
    try:
        next(iter(DataLoader(OnGPU(), batch_size=None, num_workers=1)))
    except RuntimeError as e:
        print("fork:", str(e).splitlines()[0])
        print("  from the worker:", str(e).strip().splitlines()[-1])
    cpu_batch = next(iter(DataLoader(TensorDataset(torch.ones(2, 2)), batch_size=2, num_workers=1)))
    print("fix, CPU tensors from workers, moved in the loop:", cpu_batch[0].to("cuda").device.type)
# --8<-- [end:cuda_fork]
