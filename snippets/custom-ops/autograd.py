"""register_autograd: a backward formula and setup_context."""
import numpy as np
import torch


@torch.library.custom_op("demo::np_sin", mutates_args=())
def np_sin(x: torch.Tensor) -> torch.Tensor:
    return torch.from_numpy(np.sin(x.numpy(force=True))).to(x.device)


@np_sin.register_fake
def _(x):
    return torch.empty_like(x)


# --8<-- [start:no_autograd]
xg = torch.linspace(0, 1, 4, requires_grad=True)
y = np_sin(xg)
print("grad_fn:", type(y.grad_fn).__name__)
try:
    y.sum().backward()
except RuntimeError as e:
    print("RuntimeError:", str(e).split(". ")[0] + ".")
# --8<-- [end:no_autograd]

# --8<-- [start:register_autograd]
def setup_context(ctx, inputs, output):
    # Runs after the forward, outside autograd: save what backward needs.
    (x,) = inputs
    ctx.save_for_backward(x)


def backward(ctx, grad):
    (x,) = ctx.saved_tensors
    return grad * x.cos()  # one gradient per input of the operator


np_sin.register_autograd(backward, setup_context=setup_context)

xg = torch.linspace(0, 1, 4, requires_grad=True)
np_sin(xg).sum().backward()
print("x.grad:   ", xg.grad)
print("cos(x):   ", xg.detach().cos())
xd = torch.rand(5, dtype=torch.float64, requires_grad=True)
print("gradcheck:", torch.autograd.gradcheck(np_sin, (xd,)))
# --8<-- [end:register_autograd]
