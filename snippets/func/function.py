"""A custom autograd.Function under torch.func transforms."""
# ruff: noqa: E402  (each region is a block of the page; its imports open it)
import torch

torch.manual_seed(0)
torch.set_num_threads(1)

# --8<-- [start:old_style]
import torch
from torch.func import grad, vmap


class OldCube(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):  # ctx in forward: the older way of writing a Function
        ctx.save_for_backward(x)
        return x ** 3

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return 3 * x ** 2 * g


x = torch.tensor([1.0, 2.0, 3.0])
leaf = x.clone().requires_grad_()
OldCube.apply(leaf).sum().backward()
print("autograd:", leaf.grad.tolist())
try:
    grad(lambda t: OldCube.apply(t).sum())(x)
except RuntimeError as e:
    print("grad: RuntimeError:", e)
# --8<-- [end:old_style]

# --8<-- [start:levels]
import torch._C._functorch as functorch_c


def where():
    interpreters = functorch_c.get_interpreter_stack() or []
    return " > ".join(f"{i.key().name}({i.level()})" for i in interpreters) or "(empty)"


def kind(t):
    if functorch_c.is_batchedtensor(t):
        return "BatchedTensor"
    return "TensorWrapper" if functorch_c.is_gradtrackingtensor(t) else "Tensor"


class Cube(torch.autograd.Function):
    @staticmethod
    def forward(x):
        print(f"  forward        under {where():18} x: {kind(x)}")
        return x ** 3

    @staticmethod
    def setup_context(ctx, inputs, output):
        (x,) = inputs
        print(f"  setup_context  under {where():18} x: {kind(x)}")
        ctx.save_for_backward(x)

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        print(f"  backward       under {where():18} x: {kind(x)}, g: {kind(g)}")
        return 3 * x ** 2 * g


def cube_sum(t):
    y = Cube.apply(t)
    print("  y.grad_fn:", type(y.grad_fn).__name__)
    return y.sum()


print("grad(cube_sum):")
print("result:", grad(cube_sum)(x).tolist())
# --8<-- [end:levels]

# --8<-- [start:vmap_rule]
try:
    vmap(Cube.apply)(x)
except RuntimeError as e:
    print("vmap: RuntimeError:", e)


class CubeAutoVmap(Cube):
    generate_vmap_rule = True  # vmap runs forward, setup_context, backward themselves


class CubeWithRule(Cube):
    @staticmethod
    def vmap(info, in_dims, x):  # called once for the whole batch
        print(f"  vmap rule: batch size {info.batch_size}, in_dims {in_dims}, "
              f"x {kind(x)} {tuple(x.shape)}")
        return x ** 3, in_dims[0]  # the outputs, and where their batch dim is


print("generate_vmap_rule=True:")
print("result:", vmap(CubeAutoVmap.apply)(x).tolist())
print("a vmap staticmethod:")
print("result:", vmap(CubeWithRule.apply)(x).tolist())
print("vmap(grad):")
print("result:", vmap(grad(lambda t: CubeWithRule.apply(t)))(x).tolist())
# --8<-- [end:vmap_rule]
