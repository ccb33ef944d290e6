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

# --8<-- [start:tf32_gpu]
torch.manual_seed(0)
a, b = torch.randn(1024, 1024, device="cuda"), torch.randn(1024, 1024, device="cuda")
exact = a.double() @ b.double()
claims = {"highest": "< 10", "high": "< 10000"}  # in millionths; TF32 keeps 10 mantissa bits
for precision, claim in claims.items():
    torch.set_float32_matmul_precision(precision)
    error = ((a @ b).double() - exact).abs().max() / exact.abs().max()
    print(f"largest error of a @ b under {precision!r}, relative: "
          f"{error.item() * 1e6:.1f}ppm (measured; claim: {claim})")
torch.set_float32_matmul_precision("highest")
# --8<-- [end:tf32_gpu]
