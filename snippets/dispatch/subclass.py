"""A wrapper tensor subclass: a new tensor type written in Python, below autograd."""
import torch

# --8<-- [start:wrapper]
from torch.utils._pytree import tree_map_only


class LoggingTensor(torch.Tensor):
    """A tensor that holds another tensor and logs every aten op it takes part in."""

    @staticmethod
    def __new__(cls, inner, requires_grad=False):
        # The wrapper has sizes, strides, dtype and device, but no storage of its own.
        return torch.Tensor._make_wrapper_subclass(
            cls, inner.shape, strides=inner.stride(), dtype=inner.dtype,
            device=inner.device, requires_grad=requires_grad)

    def __init__(self, inner, requires_grad=False):
        self.inner = inner

    def __repr__(self):
        return f"LoggingTensor({self.inner})"

    @classmethod
    def __torch_dispatch__(cls, func, types, args=(), kwargs=None):
        wrapped = [type(a).__name__ for a in args if isinstance(a, torch.Tensor)]
        print(f"  {func}  args: {', '.join(wrapped)}")
        unwrap = lambda t: t.inner  # noqa: E731
        out = func(*tree_map_only(cls, unwrap, args), **tree_map_only(cls, unwrap, kwargs or {}))
        return tree_map_only(torch.Tensor, cls, out)


w = LoggingTensor(torch.tensor([1.0, 2.0, 3.0]), requires_grad=True)
print("keys:", torch._C._dispatch_keys(w))
try:
    w.untyped_storage().data_ptr()
except RuntimeError as e:
    print("wrapper's data:", e)
print("inner requires_grad:", w.inner.requires_grad)
# --8<-- [end:wrapper]

# --8<-- [start:wrapper_ops]
print("forward:")
loss = (w * 2).sin().sum()
print("backward:")
loss.backward()
print("loss.grad_fn:", type(loss.grad_fn).__name__, "| w.grad is a", type(w.grad).__name__)
print("w.grad.inner:", w.grad.inner)
print("plain tensors only:")
plain = torch.ones(3) * 2  # no LoggingTensor involved: nothing is logged
print("  (nothing logged)", plain.tolist())
# --8<-- [end:wrapper_ops]
