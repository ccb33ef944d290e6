"""Gradients of gradients: create_graph=True, double backward and what it costs."""
import torch

# --8<-- [start:first_graph]
import warnings

x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
y = (x ** 3).sum()

(g,) = torch.autograd.grad(y, x, retain_graph=True)
print("dy/dx:", g, "| grad_fn:", g.grad_fn)

(g,) = torch.autograd.grad(y, x, create_graph=True)
print("dy/dx with create_graph=True:", g)


def walk(node, depth=0):
    print("  " * depth + node.name())
    for nxt, _ in node.next_functions:
        if nxt is not None:
            walk(nxt, depth + 1)


walk(g.grad_fn)
(h,) = torch.autograd.grad(g.sum(), x)
print("d(sum of dy/dx)/dx:", h)

w = torch.tensor([1.0, 2.0], requires_grad=True)
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    (w ** 2).sum().backward(create_graph=True)
print("w.grad:", w.grad)
print("warning:", str(caught[0].message).split(". ")[0])
# --8<-- [end:first_graph]

# --8<-- [start:custom_function]
from torch.autograd.function import once_differentiable
from torch.autograd.gradcheck import GradcheckError


class Cube(torch.autograd.Function):
    @staticmethod
    def forward(x):
        return x ** 3

    @staticmethod
    def setup_context(ctx, inputs, output):
        ctx.save_for_backward(inputs[0])

    @staticmethod
    def backward(ctx, grad_out):  # differentiable torch ops on the saved tensor
        (x,) = ctx.saved_tensors
        return grad_out * 3 * x ** 2


class CubeOnce(Cube):
    @staticmethod
    @once_differentiable  # runs backward under no_grad
    def backward(ctx, grad_out):
        (x,) = ctx.saved_tensors
        return grad_out * 3 * x ** 2


x64 = torch.tensor([1.0, 2.0, 3.0], dtype=torch.float64, requires_grad=True)
for fn in (Cube, CubeOnce):
    (g,) = torch.autograd.grad(fn.apply(x64).sum(), x64, create_graph=True)
    print(f"{fn.__name__}: dy/dx {g.tolist()}, requires_grad {g.requires_grad}")
    try:
        (h,) = torch.autograd.grad(g.sum(), x64)
        print("  second derivative:", h.tolist())
    except RuntimeError as e:
        print("  second derivative: RuntimeError:", e)
    try:
        print("  gradgradcheck:", torch.autograd.gradgradcheck(fn.apply, (x64,)))
    except GradcheckError as e:
        print("  gradgradcheck: GradcheckError:", str(e).splitlines()[0])
# --8<-- [end:custom_function]

# --8<-- [start:cost]
torch.manual_seed(0)
model = torch.nn.Sequential(
    torch.nn.Linear(64, 256), torch.nn.Tanh(), torch.nn.Linear(256, 1)
)
params = list(model.parameters())
batch = torch.randn(32, 64)


class SavedBytes:
    """A pack hook that adds up the distinct storages saved, parameters left out."""

    def __init__(self):
        self.storages = {}

    def pack(self, t):
        if not any(t is p for p in params):
            s = t.untyped_storage()
            self.storages[s.data_ptr()] = s.nbytes()
        return t

    def __str__(self):
        return f"{sum(self.storages.values()):,} bytes"


for create_graph in (False, True):
    forward, backward = SavedBytes(), SavedBytes()
    with torch.autograd.graph.saved_tensors_hooks(forward.pack, lambda t: t):
        loss = model(batch).pow(2).mean()
    with torch.autograd.graph.saved_tensors_hooks(backward.pack, lambda t: t):
        grads = torch.autograd.grad(loss, params, create_graph=create_graph)
    print(f"create_graph={create_graph!s:5}  forward saved {forward}, "
          f"backward saved {backward}")

penalty = sum(g.pow(2).sum() for g in grads)  # a gradient penalty
penalty.backward()  # through the backward's graph and the forward's saved tensors
print("penalty backward ran: every parameter has a .grad:",
      all(p.grad is not None for p in params))
# --8<-- [end:cost]
