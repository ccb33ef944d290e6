"""CUDA's cast lists differ from the CPU's (GPU-only block)."""
import torch

if not torch.cuda.is_available():   # the region below is a GPU-only block
    raise SystemExit(0)

# --8<-- [start:cuda_lists]
import torch.nn.functional as F

a = torch.randn(8, 8, device="cuda")
with torch.autocast("cuda", dtype=torch.float16):
    y = a @ a
    print("a @ a      ", y.dtype)
    print("y.exp()    ", y.exp().dtype)
    print("softmax(y) ", F.softmax(y, dim=-1).dtype)
    print("y.sum()    ", y.sum().dtype)
    print("mse_loss   ", F.mse_loss(y, y).dtype)
    print("y + a      ", (y + a).dtype)
# --8<-- [end:cuda_lists]
