"""CUDA caching-allocator statistics (Setting up). GPU only."""
import torch

if not torch.cuda.is_available():
    print("no CUDA device: this example needs a GPU")
    raise SystemExit(0)

# --8<-- [start:cuda_memory]
import torch

MiB = 1024 * 1024
torch.cuda.empty_cache()
before = torch.cuda.memory_allocated()
x = torch.empty(1024, 1024, device="cuda")            # 4 MiB of float32
print("allocated by x (MiB):", (torch.cuda.memory_allocated() - before) / MiB)
print("memory_allocated (MiB):", torch.cuda.memory_allocated() / MiB)
print("memory_reserved (MiB):", torch.cuda.memory_reserved() / MiB)
del x
print("after del, allocated (MiB):", torch.cuda.memory_allocated() / MiB)
print("after del, reserved (MiB):", torch.cuda.memory_reserved() / MiB)
torch.cuda.empty_cache()
print("after empty_cache, reserved (MiB):", torch.cuda.memory_reserved() / MiB)
stats = torch.cuda.memory_stats()
print("segments ever requested from the driver:", stats["segment.all.allocated"])
# --8<-- [end:cuda_memory]
