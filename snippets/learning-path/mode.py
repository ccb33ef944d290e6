"""Layer 7: the aten calls a TorchDispatchMode sees, forward and backward (Learning path)."""
import torch

# --8<-- [start:dispatch_mode]
from torch.utils._python_dispatch import TorchDispatchMode


class OpLog(TorchDispatchMode):
    """Record every aten overload that reaches the Python dispatch key."""

    def __init__(self):
        super().__init__()
        self.ops = []

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        self.ops.append(str(func))
        return func(*args, **(kwargs or {}))


p = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
q = torch.tensor([4.0, 5.0, 6.0], requires_grad=True)
with OpLog() as forward_log:
    loss = torch.mul(p, q).sum()
with OpLog() as backward_log:
    loss.backward()
print("forward :", forward_log.ops)
print("backward:", backward_log.ops)
print("p.grad:", p.grad, " q.grad:", q.grad)
# --8<-- [end:dispatch_mode]

# --8<-- [start:second_backward]
with OpLog() as again:
    torch.mul(p, q).sum().backward()
print("second backward:", again.ops)
# --8<-- [end:second_backward]
