"""A custom torch.autograd.Function, checked with gradcheck."""
# --8<-- [start:function]
import torch
from torch.autograd.gradcheck import GradcheckError


class Cube(torch.autograd.Function):
    @staticmethod
    def forward(x):                          # no ctx: runs like a normal function
        return x ** 3

    @staticmethod
    def setup_context(ctx, inputs, output):  # decide what backward will need
        (x,) = inputs
        ctx.save_for_backward(x)

    @staticmethod
    def backward(ctx, grad_out):             # one grad per forward input
        (x,) = ctx.saved_tensors
        return grad_out * 3 * x ** 2


torch.manual_seed(0)
x = torch.randn(4, dtype=torch.float64, requires_grad=True)
y = Cube.apply(x)
print("grad_fn:", y.grad_fn)
print("next_functions:", y.grad_fn.next_functions)
print("saved:", [t is x for t in y.grad_fn.saved_tensors])
# --8<-- [end:function]

# --8<-- [start:gradcheck]
class BadCube(Cube):
    @staticmethod
    def backward(ctx, grad_out):
        (x,) = ctx.saved_tensors
        return grad_out * 3 * x              # forgot a factor of x


print("Cube   :", torch.autograd.gradcheck(Cube.apply, (x,)))
try:
    torch.autograd.gradcheck(BadCube.apply, (x,))
except GradcheckError as err:
    print("BadCube: GradcheckError:", str(err).strip())
# --8<-- [end:gradcheck]

# --8<-- [start:float32]
x32 = x.detach().float().requires_grad_()
try:
    torch.autograd.gradcheck(Cube.apply, (x32,))
except GradcheckError as err:
    lines = str(err).splitlines()
    print("Cube in float32: GradcheckError:", lines[0])
    print(" ", lines[1])                     # first row of the finite-difference Jacobian
    print(" ", lines[5])                     # first row of what backward returned
# --8<-- [end:float32]

# --8<-- [start:nondiff]
class Scale(torch.autograd.Function):
    @staticmethod
    def forward(x, k):
        return x * k

    @staticmethod
    def setup_context(ctx, inputs, output):
        x, k = inputs
        ctx.mark_non_differentiable(k)       # the common advice: mark an *input*
        ctx.save_for_backward(k)

    @staticmethod
    def backward(ctx, grad_out):
        (k,) = ctx.saved_tensors
        print("  needs_input_grad:", ctx.needs_input_grad)
        return grad_out * k, None            # None: no gradient for k


a = torch.randn(3, requires_grad=True)
k = torch.randn(3, requires_grad=True)
out = Scale.apply(a, k)
print("output requires_grad:", out.requires_grad)
out.sum().backward()
print("k.grad:", k.grad)


def twice(x, mark):
    class Twice(torch.autograd.Function):
        @staticmethod
        def forward(x):
            return x * 2, x * 3                  # two float outputs

        @staticmethod
        def setup_context(ctx, inputs, output):
            if mark:
                ctx.mark_non_differentiable(output[1])   # what it is for: an *output*

        @staticmethod
        def backward(ctx, grad_2x, grad_3x):
            return grad_2x * 2 + grad_3x * 3

    return Twice.apply(x)


for mark in (False, True):
    doubled, tripled = twice(a, mark)
    print(f"mark_non_differentiable(output[1]) {mark!s:5}: outputs require grad:",
          doubled.requires_grad, tripled.requires_grad)


class ArgmaxToo(torch.autograd.Function):
    @staticmethod
    def forward(x):
        return x * 2, x.argmax()

    @staticmethod
    def setup_context(ctx, inputs, output):
        pass                                     # no mark at all

    @staticmethod
    def backward(ctx, grad_out, grad_idx):
        return grad_out * 2


doubled, idx = ArgmaxToo.apply(a)
print("an int64 output, unmarked: outputs require grad:", doubled.requires_grad,
      idx.requires_grad)
# --8<-- [end:nondiff]
