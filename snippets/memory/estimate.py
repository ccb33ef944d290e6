"""Estimating memory without allocating it: modules built on the meta device."""
import torch
from torch import nn

# --8<-- [start:meta_model]
with torch.device("meta"):                  # every factory call inside makes meta tensors
    stack = nn.Sequential(*[
        nn.TransformerEncoderLayer(d_model=4096, nhead=32, dim_feedforward=16384,
                                   batch_first=True)
        for _ in range(8)
    ])
params = list(stack.parameters())
n_params = sum(p.numel() for p in params)
param_bytes = sum(p.numel() * p.element_size() for p in params)
GiB = 2**30
print("parameter device:", params[0].device, "| is_meta:", params[0].is_meta)
print(f"parameters: {n_params:,}  ({param_bytes / GiB:.2f} GiB in float32)")
print(f"+ grads + Adam exp_avg, exp_avg_sq: {4 * param_bytes / GiB:.2f} GiB before activations")
print(f"in bfloat16 weights alone: {n_params * 2 / GiB:.2f} GiB")
# --8<-- [end:meta_model]

# --8<-- [start:meta_ops]
x = torch.empty(8, 512, 4096, device="meta")
y = stack[0].linear1(x)                     # shape inference runs, no arithmetic
print("linear1 output:", tuple(y.shape), y.device)
print("would need", y.numel() * y.element_size() // 2**20, "MiB")
try:
    y.sum().item()
except Exception as e:                      # meta tensors have no values to read
    print(f"{type(e).__name__}: {e}")
# --8<-- [end:meta_ops]
