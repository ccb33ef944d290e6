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

# --8<-- [start:fn_float32]
a32, b32 = a.detach().float().requires_grad_(), b.detach().float().requires_grad_()
print("float32 gradcheck of the CORRECT function:",
      gradcheck(ScaledSinFixed.apply, (a32, b32), raise_exception=False))
# --8<-- [end:fn_float32]

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

# --8<-- [start:fn_mark_nd]
class MarkedInput(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, scale):
        ctx.mark_non_differentiable(scale)       # claim: marks the INPUT as not needing grad
        ctx.save_for_backward(scale)
        return x * scale

    @staticmethod
    def backward(ctx, grad_out):
        print("  needs_input_grad in backward:", ctx.needs_input_grad)
        (scale,) = ctx.saved_tensors
        return grad_out * scale, grad_out * 0 + 123.0   # a bogus gradient for scale


scale = torch.full((3,), 2.0, dtype=torch.double, requires_grad=True)
MarkedInput.apply(a, scale).sum().backward()
print("scale.grad after marking the input:", scale.grad)


class ArgmaxToo(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        idx = x.argmax()
        ctx.mark_non_differentiable(idx)        # what it is for: an OUTPUT
        return x * 2, idx

    @staticmethod
    def backward(ctx, grad_out, grad_idx):
        return grad_out * 2


out, idx = ArgmaxToo.apply(a)
print("outputs require grad:", out.requires_grad, idx.requires_grad)
# --8<-- [end:fn_mark_nd]
