"""The cast policies: lower precision, fp32, promote, and ops autocast leaves alone."""
# --8<-- [start:lower]
import warnings

import torch
import torch.nn.functional as F

torch.manual_seed(0)
a, b = torch.randn(8, 8), torch.randn(8, 8)
img, kernel = torch.randn(1, 3, 8, 8), torch.randn(4, 3, 3, 3)
with torch.autocast("cpu", dtype=torch.bfloat16):
    print("a @ b        ", (a @ b).dtype)
    print("F.linear     ", F.linear(a, b).dtype)
    print("torch.bmm    ", torch.bmm(a[None], b[None]).dtype)
    print("F.conv2d     ", F.conv2d(img, kernel).dtype)
print("outside: a @ b", (a @ b).dtype)
# --8<-- [end:lower]

# --8<-- [start:fp32]
low = a.bfloat16()
with torch.autocast("cpu", dtype=torch.bfloat16):
    print("mse_loss(bf16, bf16)", F.mse_loss(low, low).dtype)
    print("cdist(bf16, bf16)   ", torch.cdist(low, low).dtype)
    print("prod(bf16)          ", low.prod().dtype)
print("outside: mse_loss(bf16, bf16)", F.mse_loss(low, low).dtype)
# --8<-- [end:fp32]

# --8<-- [start:promote]
dst, idx = torch.zeros(3, 8), torch.tensor([0, 2])
with torch.autocast("cpu", dtype=torch.bfloat16):
    y = a @ b                                   # bfloat16
    print("stack([bf16, fp32])       ", torch.stack([y, a]).dtype)
    print("cat([bf16, bf16])         ", torch.cat([y, y]).dtype)
    print("index_copy(fp32, bf16 src)", dst.index_copy(0, idx, y[:2]).dtype)
print("outside: stack([bf16, fp32])", torch.stack([y, a]).dtype)
try:
    dst.index_copy(0, idx, y[:2])
except RuntimeError as e:
    print("outside:", e)
# --8<-- [end:promote]

# --8<-- [start:unlisted]
with torch.autocast("cpu", dtype=torch.bfloat16):
    y = a @ b
    print("y + a (bf16 + fp32)", (y + a).dtype)
    print("y.exp()            ", y.exp().dtype)
    print("a.exp()            ", a.exp().dtype)
    print("softmax(y)         ", F.softmax(y, dim=-1).dtype)
    print("y.sum()            ", y.sum().dtype)
# --8<-- [end:unlisted]

# --8<-- [start:fp16_cpu]
with torch.autocast("cpu", dtype=torch.float16):
    print("fp16 on CPU: a @ b ", (a @ b).dtype)
    print("fp16 on CPU: mse   ", F.mse_loss(a @ b, a).dtype)
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    with torch.autocast("cpu", dtype=torch.float64):  # not a lower precision: refused
        print("fp64 asked: a @ b", (a @ b).dtype, "enabled:", torch.is_autocast_enabled("cpu"))
print("warning:", caught[0].message)
# --8<-- [end:fp16_cpu]
