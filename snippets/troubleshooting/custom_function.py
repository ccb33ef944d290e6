"""Row 3: wrong gradients from a custom autograd.Function."""
import torch

# --8<-- [start:fn_repro]
torch.manual_seed(0)
torch.set_printoptions(precision=4)
from torch.autograd import gradcheck
from torch.autograd.gradcheck import GradcheckError


class ScaledSin(torch.autograd.Function):
    """out = a * sin(b)"""

    @staticmethod
    def forward(ctx, a, b):
        ctx.save_for_backward(a, b)
        return a * b.sin()

    @staticmethod
    def backward(ctx, grad_out):
        a, b = ctx.saved_tensors
        return grad_out * b.sin(), grad_out * b.cos()    # bug: d/db forgets the factor a


a = torch.randn(3, dtype=torch.double, requires_grad=True)
b = torch.randn(3, dtype=torch.double, requires_grad=True)
print("forward matches:", torch.equal(ScaledSin.apply(a, b), a * b.sin()))
print("gradcheck:", gradcheck(ScaledSin.apply, (a, b), raise_exception=False))
try:
    gradcheck(ScaledSin.apply, (a, b))
except GradcheckError as e:
    print(f"GradcheckError: {e}")
# --8<-- [end:fn_repro]

# --8<-- [start:fn_fix]
class ScaledSinFixed(ScaledSin):
    @staticmethod
    def backward(ctx, grad_out):
        a, b = ctx.saved_tensors
        grad_a = grad_out * b.sin() if ctx.needs_input_grad[0] else None
        grad_b = grad_out * a * b.cos() if ctx.needs_input_grad[1] else None
        return grad_a, grad_b


print("gradcheck:    ", gradcheck(ScaledSinFixed.apply, (a, b)))
print("gradgradcheck:", torch.autograd.gradgradcheck(ScaledSinFixed.apply, (a, b)))
# --8<-- [end:fn_fix]


# --8<-- [start:fn_outside]
class NumpySquare(torch.nn.Module):
    def forward(self, x):
        return torch.from_numpy(x.detach().numpy() ** 2)   # leaves autograd's view


inp = torch.randn(3, requires_grad=True)
out = NumpySquare()(inp)
print("grad_fn:", out.grad_fn, "| requires_grad:", out.requires_grad)
try:
    out.sum().backward()
except RuntimeError as e:
    print(f"RuntimeError: {e}")
mixed = NumpySquare()(inp) + inp          # another path reaches inp: no error at all
mixed.sum().backward()
print("grad of x**2 + x:", inp.grad, "expected:", 2 * inp.detach() + 1)
# --8<-- [end:fn_outside]

# --8<-- [start:fn_count]
class TwoInputs(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, scale):
        ctx.save_for_backward(scale)
        return x * scale

    @staticmethod
    def backward(ctx, grad_out):
        (scale,) = ctx.saved_tensors
        return grad_out * scale                  # one gradient for two inputs


try:
    TwoInputs.apply(a, torch.tensor(2.0, dtype=torch.double)).sum().backward()
except RuntimeError as e:
    print(f"RuntimeError: {e}")
# --8<-- [end:fn_count]

