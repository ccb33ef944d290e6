"""Pinned host memory: what pin_memory() allocates, and why non_blocking copies need it.

The first region runs anywhere; the region after the SystemExit needs CUDA.
"""
import torch

# --8<-- [start:pinned_here]
host = torch.arange(6.0)
print("host.is_pinned():", host.is_pinned(), "| accelerator available:",
      torch.accelerator.is_available())
for label, make in [("host.pin_memory()", lambda: host.pin_memory()),
                    ("torch.empty(6, pin_memory=True)",
                     lambda: torch.empty(6, pin_memory=True))]:
    try:
        make()
    except RuntimeError as e:
        print(f"{label}: RuntimeError: {str(e).splitlines()[0]}")
# --8<-- [end:pinned_here]

if not torch.cuda.is_available():  # the region below is a GPU-only block
    raise SystemExit(0)

# --8<-- [start:cuda_pinned]
x = torch.randn(1000, 1000)  # 4,000,000 bytes of ordinary (pageable) memory
p = x.pin_memory()  # a copy, in memory from the host caching allocator
print("x pinned:", x.is_pinned(), "| p pinned:", p.is_pinned(),
      "| same values:", torch.equal(p, x),
      "| p is a copy:", p.data_ptr() != x.data_ptr())
print("p.pin_memory() is p:", p.pin_memory() is p)
stats = torch.cuda.host_memory_stats()
print(f"host allocated_bytes.current: {stats['allocated_bytes.current']:,}")
print("num_host_alloc:", stats["num_host_alloc"])
del p
q = torch.randn(1000, 1000).pin_memory()  # the same size again
print("num_host_alloc after pinning the same size again:",
      torch.cuda.host_memory_stats()["num_host_alloc"])

y = torch.empty(1000, 1000, device="cuda")
y.copy_(q, non_blocking=True)  # queued on the stream; Python goes on at once
torch.cuda.synchronize()  # wait before reading y on the host
print("copy arrived:", torch.equal(y.cpu(), q))
# --8<-- [end:cuda_pinned]
