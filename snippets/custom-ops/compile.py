"""A custom op under torch.compile: one opaque node, no graph break."""
import numpy as np
import torch


@torch.library.custom_op("demo::np_sin", mutates_args=())
def np_sin(x: torch.Tensor) -> torch.Tensor:
    return torch.from_numpy(np.sin(x.numpy(force=True))).to(x.device)


@np_sin.register_fake
def _(x):
    return torch.empty_like(x)


np_sin.register_autograd(
    lambda ctx, grad: grad * ctx.saved_tensors[0].cos(),
    setup_context=lambda ctx, inputs, output: ctx.save_for_backward(inputs[0]),
)

# --8<-- [start:graph]
def show_graph(gm, example_inputs):
    """A torch.compile backend that prints the captured FX graph's calls."""
    print("captured:", [str(n.target) for n in gm.graph.nodes if n.op == "call_function"])
    return gm.forward


def f(x):
    return np_sin(x * 2) + 1


x = torch.randn(4)
compiled = torch.compile(f, backend=show_graph, fullgraph=True)
print("matches eager:", torch.allclose(compiled(x), f(x)))
# --8<-- [end:graph]

# --8<-- [start:aot]
torch._dynamo.reset()
xg = torch.randn(4, requires_grad=True)
compiled = torch.compile(f, backend="aot_eager", fullgraph=True)
compiled(xg).sum().backward()
print("grad == 2*cos(2x):", torch.allclose(xg.grad, 2 * (2 * xg.detach()).cos()))
# --8<-- [end:aot]

# --8<-- [start:no_fake]
@torch.library.custom_op("demo::np_cos", mutates_args=())
def np_cos(x: torch.Tensor) -> torch.Tensor:
    return torch.from_numpy(np.cos(x.numpy(force=True)))


def g(x):
    return np_cos(x * 2) + 1


try:
    torch.compile(g, backend="eager", fullgraph=True)(torch.randn(4))
except Exception as e:
    print(f"{type(e).__module__}.{type(e).__name__}: {str(e).splitlines()[0]}")
    print("mentions register_fake:", "np_cos.register_fake" in str(e))
# --8<-- [end:no_fake]
