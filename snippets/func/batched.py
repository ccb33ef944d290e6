"""vmap: what the function sees (a BatchedTensor) and which operators really run."""
# ruff: noqa: E402  (each region is a block of the page; its imports open it)
import torch

torch.manual_seed(0)
torch.set_num_threads(1)

# --8<-- [start:inside]
import torch
import torch._C._functorch as functorch_c
from torch.func import vmap


def look(row):
    print("the function sees:", row)
    print("shape:", tuple(row.shape), "| level:", functorch_c.maybe_get_level(row),
          "| batch dim:", functorch_c.maybe_get_bdim(row))
    print("keys:", torch._C._dispatch_keys(row))
    inner = functorch_c.get_unwrapped(row)
    print("unwrapped:", tuple(inner.shape), torch._C._dispatch_keys(inner))
    return row.sum()


xs = torch.arange(6.0).reshape(3, 2)
print("vmap(look)(xs) =", vmap(look)(xs))
print("--- in_dims=1: the batch runs along the columns")
print("vmap(look, in_dims=1)(xs) =", vmap(look, in_dims=1)(xs))
# --8<-- [end:inside]

# --8<-- [start:ops]
from torch.utils._python_dispatch import TorchDispatchMode
from torch.utils._pytree import tree_leaves


class ShowOps(TorchDispatchMode):
    """Print each ATen operator that reaches the Python key, with its shapes."""

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        out = func(*args, **(kwargs or {}))
        tensors = [a for a in tree_leaves(args) if isinstance(a, torch.Tensor)]
        shapes = [tuple(t.shape) for t in tensors]
        is_tensor = isinstance(out, torch.Tensor)
        result = tuple(out.shape) if is_tensor else type(out).__name__
        print(f"  {func}{shapes} -> {result}")
        return out


A = torch.randn(3, 4)
examples = torch.randn(5, 4)


def score(x):  # written for one example: x has shape (4,)
    return torch.mv(A, x).relu().sum()


with ShowOps():
    print("score(examples[0]):")
    score(examples[0])
    print("vmap(score)(examples):")
    scores = vmap(score)(examples)
looped = torch.stack([score(x) for x in examples])
print("one result per example:", tuple(scores.shape),
      "| same as a loop:", torch.allclose(scores, looped))
# --8<-- [end:ops]

# --8<-- [start:control_flow]
xs = torch.tensor([[1.0, -2.0], [3.0, 4.0], [-5.0, 1.0]])  # a batch of 3 rows of 2


def flip_if_negative(row):
    if row.sum() < 0:  # a Python bool of a value that differs per example
        return -row
    return row


for name, fn in [("if on a value", flip_if_negative),
                 (".item()", lambda row: row.sum().item())]:
    try:
        vmap(fn)(xs)
    except RuntimeError as e:
        print(f"{name}: RuntimeError: {e}")
flipped = vmap(lambda row: torch.where(row.sum() < 0, -row, row))(xs)
print("torch.where instead:", flipped.tolist())

total = torch.zeros(2)
try:
    vmap(lambda row: total.add_(row))(xs)  # a batch of rows into one unbatched tensor
except RuntimeError as e:
    print("unbatched.add_(batched): RuntimeError:", e)
# --8<-- [end:control_flow]
