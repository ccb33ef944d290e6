"""__torch_function__: intercepting calls at the Python API, before the dispatcher."""
import torch

# --8<-- [start:subclass]
class Traced(torch.Tensor):
    """A tensor subclass that logs every torch API call it takes part in."""

    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        print("  __torch_function__:", func.__name__)
        return super().__torch_function__(func, types, args, kwargs or {})


t = torch.ones(3).as_subclass(Traced)
out = torch.add(t, 1).mul(2).sum()
print("result type:", type(out).__name__)
print("subclass keys:", torch._C._dispatch_keys(t))
# --8<-- [end:subclass]

# --8<-- [start:mode]
from torch.overrides import TorchFunctionMode, resolve_name


class LogTorchFunction(TorchFunctionMode):
    def __torch_function__(self, func, types, args=(), kwargs=None):
        print("  torch function:", resolve_name(func))
        return func(*args, **(kwargs or {}))


torch.manual_seed(0)
x = torch.randn(3, 4, requires_grad=True)
w = torch.randn(2, 4, requires_grad=True)
b = torch.randn(2, requires_grad=True)
with LogTorchFunction():
    loss = torch.nn.functional.linear(x, w, b).relu().sum()
    loss.backward()
print("x.grad computed:", x.grad is not None)
# --8<-- [end:mode]
