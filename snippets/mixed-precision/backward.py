"""What backward runs in: the dtypes the forward chose, whether or not autocast is on."""
# --8<-- [start:ops]
import torch
from torch.utils._python_dispatch import TorchDispatchMode


class LogOps(TorchDispatchMode):
    """Record the aten ops that compute or cast, with input and output dtypes."""

    SHOWN = {"mm", "addmm", "_to_copy", "sum", "mul", "mse_loss_backward", "mse_loss"}

    def __init__(self):
        super().__init__()
        self.rows = []

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        out = func(*args, **(kwargs or {}))
        name = func.overloadpacket.__name__
        if name in self.SHOWN:
            ins = [str(a.dtype).removeprefix("torch.") for a in args if isinstance(a, torch.Tensor)]
            self.rows.append(f"{name}({', '.join(ins)}) -> {str(out.dtype).removeprefix('torch.')}")
        return out


torch.manual_seed(0)
lin = torch.nn.Linear(8, 8)
x, target = torch.randn(2, 8), torch.randn(2, 8)
with LogOps() as log:
    with torch.autocast("cpu", dtype=torch.bfloat16):
        loss = torch.nn.functional.mse_loss(lin(x), target)
print("forward: ", *log.rows, sep="\n  ")
with torch.autocast("cpu", dtype=torch.bfloat16):
    node = lin(x).grad_fn
print("graph:", node.name(), "<-", [n.name() for n, _ in node.next_functions if n is not None])
with LogOps() as log:
    loss.backward()                              # outside the autocast region
print("backward:", *log.rows, sep="\n  ")
print("weight.grad:", lin.weight.grad.dtype, " bias.grad:", lin.bias.grad.dtype)
# --8<-- [end:ops]

# --8<-- [start:around]
grad_outside = lin.weight.grad.clone()
lin.zero_grad()
with torch.autocast("cpu", dtype=torch.bfloat16):
    loss = torch.nn.functional.mse_loss(lin(x), target)
    with LogOps() as log_inside:
        loss.backward()                          # inside the region this time
print("same backward ops:", log_inside.rows == log.rows)
print("same gradient:    ", torch.equal(lin.weight.grad, grad_outside))

# A part of the forward kept in float32 on purpose, then backward inside a region:
w = torch.randn(8, 8, requires_grad=True)
with torch.autocast("cpu", dtype=torch.bfloat16):
    with torch.autocast("cpu", enabled=False):
        loss = (x @ w).sum()                     # float32 matmul
    with LogOps() as log_fp32_part:
        loss.backward()
print("backward of the fp32 part, inside a region:", *log_fp32_part.rows, sep="\n  ")
# --8<-- [end:around]
