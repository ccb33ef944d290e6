"""Forward-mode AD: dual tensors, jvp, and how it compares with reverse mode."""
# --8<-- [start:dual]
import warnings

import torch
import torch.autograd.forward_ad as fwAD

# The first make_dual of a process loads decompositions compiled with torch.jit.script;
# TorchScript's deprecation warning has nothing to do with forward AD.
warnings.filterwarnings("ignore", message=r"`torch\.jit\.script` is deprecated")

torch.manual_seed(0)
torch.set_printoptions(precision=4)
W = torch.randn(2, 3)


def f(x):                                    # R^3 -> R^2
    return torch.tanh(W @ x) * x[:2]


x = torch.randn(3)
v = torch.tensor([1.0, 0.0, 0.0])            # the direction: along the first input
with fwAD.dual_level():
    dual = fwAD.make_dual(x, v)              # x, carrying the tangent v
    out = f(dual)
    primal, tangent = fwAD.unpack_dual(out)
    print("primal  = f(x)  :", primal)
    print("tangent = J @ v :", tangent)
    print("out.grad_fn:", out.grad_fn, "| dual's tangent is v itself:",
          fwAD.unpack_dual(dual).tangent is v)
print("after the level exits, out's tangent:", fwAD.unpack_dual(out).tangent)
# --8<-- [end:dual]

# --8<-- [start:dual_layout]
base = torch.randn(2, 3)
tangents = {"same layout": torch.randn(2, 3), "transposed": torch.randn(3, 2).t()}
with fwAD.dual_level():
    for name, t in tangents.items():
        stored = fwAD.unpack_dual(fwAD.make_dual(base, t)).tangent
        print(f"{name:12} tangent strides {t.stride()} -> stored {stored.stride()},",
              "same tensor:", stored is t, "| same values:", torch.equal(stored, t))
        t.add_(1)                            # write into the tangent that was passed
        print(f"{'':12} stored tangent sees the later write:", torch.equal(stored, t))
# --8<-- [end:dual_layout]

# --8<-- [start:jvp_vs_vjp]
value, jvp = torch.func.jvp(f, (x,), (v,))
print("torch.func.jvp       :", jvp)

xr = x.clone().requires_grad_()
y = f(xr)
rows = [torch.autograd.grad(y[i], xr, retain_graph=True)[0] for i in range(2)]
J = torch.stack(rows)                        # reverse mode: one backward per output
print("reverse mode, J @ v  :", J @ v)
print("J from forward columns (jacfwd) == J from backward rows (jacrev):",
      torch.allclose(torch.func.jacfwd(f)(x), torch.func.jacrev(f)(x)))
# --8<-- [end:jvp_vs_vjp]

# --8<-- [start:keeps_nothing]
def saved_by(run):
    """How many tensors the graph saves for backward while `run` executes."""
    saved = []
    with torch.autograd.graph.saved_tensors_hooks(lambda t: saved.append(t) or t, lambda t: t):
        run()
    return len(saved)


def reverse_mode():
    f(x.clone().requires_grad_())


def forward_mode():
    with fwAD.dual_level():
        f(fwAD.make_dual(x, v))


print("tensors saved for backward, reverse mode:", saved_by(reverse_mode))
print("tensors saved for backward, forward mode:", saved_by(forward_mode))
# --8<-- [end:keeps_nothing]

# --8<-- [start:function_jvp]
class Square(torch.autograd.Function):
    @staticmethod
    def forward(x):
        return x * x

    @staticmethod
    def setup_context(ctx, inputs, output):
        (x,) = inputs
        ctx.save_for_backward(x)             # for backward, if it ever runs
        ctx.x = x                            # for jvp, which runs right after forward

    @staticmethod
    def backward(ctx, grad_out):
        (x,) = ctx.saved_tensors
        return 2 * x * grad_out


class SquareWithJvp(Square):
    @staticmethod
    def jvp(ctx, x_tangent):                 # a tangent per input -> a tangent per output
        return 2 * ctx.x * x_tangent


with fwAD.dual_level():
    d = fwAD.make_dual(torch.tensor([1.0, 2.0]), torch.ones(2))
    try:
        Square.apply(d)
    except NotImplementedError as err:
        print(f"NotImplementedError: {err}")
    print("SquareWithJvp tangent:", fwAD.unpack_dual(SquareWithJvp.apply(d)).tangent)
# --8<-- [end:function_jvp]
