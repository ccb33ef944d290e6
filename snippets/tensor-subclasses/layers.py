"""One subclass, both hooks: what __torch_function__ and __torch_dispatch__ see."""
import torch

torch.manual_seed(0)
torch.set_num_threads(1)

# --8<-- [start:both]
import torch
import torch.nn.functional as F
from torch.overrides import resolve_name
from torch.utils._pytree import tree_map_only

calls = []  # (layer, what it saw), for the figure below


class Seen(torch.Tensor):
    """A wrapper around one plain tensor that reports what each of its hooks sees."""

    @staticmethod
    def __new__(cls, inner, requires_grad=False):
        return torch.Tensor._make_wrapper_subclass(
            cls, inner.shape, dtype=inner.dtype, device=inner.device,
            requires_grad=requires_grad)

    def __init__(self, inner, requires_grad=False):
        self.inner = inner

    def __repr__(self):
        return f"Seen({self.inner})"

    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        calls.append(("function", resolve_name(func)))
        print("function:", calls[-1][1])
        return super().__torch_function__(func, types, args, kwargs)

    @classmethod
    def __torch_dispatch__(cls, func, types, args=(), kwargs=None):
        calls.append(("dispatch", str(func)))
        print("    dispatch:", func)
        args = tree_map_only(cls, lambda t: t.inner, args)
        kwargs = tree_map_only(cls, lambda t: t.inner, kwargs or {})
        types = ", ".join(type(a).__name__ for a in args if isinstance(a, torch.Tensor))
        calls.append(("kernel", f"{func.__name__}({types})"))
        return tree_map_only(torch.Tensor, cls, func(*args, **kwargs))


x = torch.randn(3, 4)
w = Seen(torch.randn(2, 4), requires_grad=True)
print("-- forward")
y = F.linear(x, w)
forward_calls = list(calls)
print("-- reading y.grad_fn")
node = y.grad_fn
print("-- backward")
y.sum().backward()
print("y is a", type(y).__name__, "| its node:", type(node).__name__,
      "| w.grad is a", type(w.grad).__name__)
print("F.linear is a", type(F.linear).__name__,
      "| Tensor.backward is a", type(torch.Tensor.backward).__name__)
# --8<-- [end:both]

# --8<-- [start:inference]
for name, mode in [("no_grad", torch.no_grad),
                   ("inference_mode", torch.inference_mode)]:
    print(f"-- {name}")
    with mode():
        F.linear(x, w)
# --8<-- [end:inference]

# --8<-- [start:draw]
import matplotlib.pyplot as plt

layers = [
    ("Python API", "__torch_function__",
     [what for layer, what in forward_calls if layer == "function"]),
    ("dispatcher: Autograd", "records the graph",
     [f"linear -> t, mm; node {type(node).__name__}"]),
    ("dispatcher: Python key", "__torch_dispatch__",
     [what for layer, what in forward_calls if layer == "dispatch"]),
    ("dispatcher: CPU", "kernels, plain tensors",
     [what for layer, what in forward_calls if layer == "kernel"]),
]
fig, ax = plt.subplots(figsize=(6.4, 3.8))
for row, (where, hook, saw) in enumerate(layers):
    ax.text(0, -row, f"{where}\n{hook}", ha="center", va="center", fontsize=9,
            bbox={"boxstyle": "round,pad=0.4", "facecolor": "#d9ecf7",
                  "edgecolor": "#0072B2"})
    ax.text(1.1, -row, ", ".join(saw), ha="left", va="center", fontsize=9)
    if row:
        ax.annotate("", xy=(0, -row + 0.3), xytext=(0, -row + 0.7),
                    arrowprops={"arrowstyle": "-|>", "color": "#595959"})
    print(f"{where:<23} {hook:<23} saw: {', '.join(saw)}")
ax.set_xlim(-1.3, 3.6)
ax.set_ylim(-len(layers) + 0.5, 0.5)
ax.axis("off")
ax.set_title("F.linear(x, w) with w a Seen wrapper: what each layer sees")
fig.savefig("subclass-layers.svg")
# --8<-- [end:draw]
