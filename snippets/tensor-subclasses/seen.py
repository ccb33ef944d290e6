"""What the dispatcher and autograd see of a wrapper subclass, and what they do not."""
import torch

torch.manual_seed(0)
torch.set_num_threads(1)

# --8<-- [start:walk]
import re

from torch.utils._pytree import tree_map_only


class Plain(torch.Tensor):
    """The smallest useful wrapper: runs each op on the inner tensor, wraps results."""

    @staticmethod
    def __new__(cls, inner, requires_grad=False):
        return torch.Tensor._make_wrapper_subclass(
            cls, inner.shape, dtype=inner.dtype, device=inner.device,
            requires_grad=requires_grad)

    def __init__(self, inner, requires_grad=False):
        self.inner = inner

    def __repr__(self):
        return f"Plain({self.inner})"

    __torch_function__ = torch._C._disabled_torch_function_impl

    @classmethod
    def __torch_dispatch__(cls, func, types, args=(), kwargs=None):
        out = func(*tree_map_only(cls, lambda t: t.inner, args),
                   **tree_map_only(cls, lambda t: t.inner, kwargs or {}))
        return tree_map_only(torch.Tensor, cls, out)


rows = re.findall(r"^(\w+): (fallthrough )?registered at \S+?([\w.]+):\d+ \[",
                  torch._C._dispatch_dump_table("aten::mm"), re.MULTILINE)
table = {key: f"{fallthrough or 'kernel '}in {file}" for key, fallthrough, file in rows}
excluded = torch._C._dispatch_tls_local_exclude_set()
w = Plain(torch.ones(2, 2), requires_grad=True)
keys = torch._C._dispatch_keys(w) | torch._C._dispatch_tls_local_include_set()
print("torch.mm(w, w), keys highest priority first:")
while (key := keys.highestPriorityTypeId()).name != "Undefined":
    keys = keys.remove(key)
    where = "excluded by the thread" if excluded.has(key) else table.get(key.name)
    print(f"  {key.name:<18} {where or 'no kernel'}")
# --8<-- [end:walk]

# --8<-- [start:below_autograd]
DK = torch._C.DispatchKey


class Probe(Plain):
    @classmethod
    def __torch_dispatch__(cls, func, types, args=(), kwargs=None):
        inner = args[0].inner
        out = func(inner, *args[1:], **(kwargs or {}))
        print(f"  {func}: grad mode {torch.is_grad_enabled()}, {excluded()}")
        print(f"    inner.requires_grad {inner.requires_grad}"
              f" -> out.requires_grad {out.requires_grad}")
        return cls(out)


def excluded():
    """Is each key excluded by the thread? Autograd, and one autograd leaves alone."""
    exclude = torch._C._dispatch_tls_local_exclude_set()
    return (f"excluded: autograd keys {exclude.has(DK.AutogradFunctionality)},"
            f" Functionalize {exclude.has(DK.Functionalize)}")


p = Probe(torch.ones(3, requires_grad=True), requires_grad=True)
print("outside:", excluded())
q = p * 2
print("the wrapper's result:", type(q.grad_fn).__name__)
# --8<-- [end:below_autograd]

# --8<-- [start:saved]
a = Plain(torch.ones(2, 3, requires_grad=True), requires_grad=True)
b = Plain(torch.full((3, 2), 0.5))
m = torch.mm(a, b)
print("node:", type(m.grad_fn).__name__, "| saved mat2 is b:",
      m.grad_fn._saved_mat2 is b)
m.sum().backward()
print("a.grad is a", type(a.grad).__name__, "| a.inner.requires_grad:",
      a.inner.requires_grad, "| a.inner.grad:", a.inner.grad)
# --8<-- [end:saved]

# --8<-- [start:metadata_check]
class Liar(Plain):
    @staticmethod
    def __new__(cls, inner, shape=None, requires_grad=False):  # claims `shape`
        return torch.Tensor._make_wrapper_subclass(
            cls, shape or inner.shape, dtype=inner.dtype, requires_grad=requires_grad)

    def __init__(self, inner, shape=None, requires_grad=False):
        self.inner = inner


liar = Liar(torch.arange(6.0), shape=(2, 3), requires_grad=True)
out = liar * 2  # Plain's __torch_dispatch__ wraps the inner result, of shape (6,)
print("forward ran: out.shape", tuple(out.shape), "| node:", type(out.grad_fn).__name__)
try:
    out.sum().backward()
except RuntimeError as e:
    print("backward:", e)
# --8<-- [end:metadata_check]
