"""Where the compiler meets torch.func: traced transforms, FunctionalTensor."""
# ruff: noqa: E402  (each region is a block of the page; its imports open it)
import torch

torch.manual_seed(0)
torch.set_num_threads(1)

# --8<-- [start:traced]
import torch
from torch.func import grad, vmap
from torch.fx.experimental.proxy_tensor import make_fx

W = torch.randn(3, 4)


def example_loss(x):  # one example
    return torch.mv(W, x).relu().sum()


graph = make_fx(vmap(grad(example_loss)))(torch.randn(5, 4))
print(graph.code.strip())
targets = {str(node.target) for node in graph.graph.nodes if node.op == "call_function"}
print("anything of functorch left:", any("functorch" in t for t in targets))
# --8<-- [end:traced]

# --8<-- [start:dynamo]
import textwrap

from torch._dynamo.backends.common import aot_autograd


def calls(gm):
    """The functions and methods a graph calls, in order."""
    return " > ".join(getattr(node.target, "__name__", str(node.target))
                      for node in gm.graph.nodes
                      if node.op in ("call_function", "call_method"))


def show_aot_graph(gm, example_inputs):
    print("AOTAutograd's graph:\n" + textwrap.fill(calls(gm), 88))
    return gm  # run it as it is


def show_dynamo_graph(gm, example_inputs):  # a torch.compile backend
    print("Dynamo's graph:\n" + textwrap.fill(calls(gm), 88))
    return aot_autograd(fw_compiler=show_aot_graph)(gm, example_inputs)


def per_example_grads(xs, W):  # W passed in: the graph takes it as an input
    return vmap(grad(lambda x: torch.mv(W, x).relu().sum()))(xs)


compiled = torch.compile(per_example_grads, backend=show_dynamo_graph, fullgraph=True)
xs = torch.randn(5, 4)
print("same as eager:", torch.allclose(compiled(xs, W), per_example_grads(xs, W)))
# --8<-- [end:dynamo]

# --8<-- [start:functional_tensor]
import torch._C._functorch as functorch_c
from torch._subclasses.functional_tensor import FunctionalTensor, FunctionalTensorMode

x = torch.zeros(2, 3)
with FunctionalTensorMode():
    fx = FunctionalTensor.to_functional(x)
    print("AOTAutograd's tensor:", type(fx).__name__, torch._C._dispatch_keys(fx))
    inner = fx.elem
    print("what it wraps:       ", type(inner).__name__,
          "| a FunctionalTensorWrapper:", torch._is_functional_tensor(inner),
          "| functorch level:", functorch_c.maybe_get_level(inner))
    print("                     ", torch._C._dispatch_keys(inner))
    fx[0].mul_(10)
    print("data mutation recorded on the wrapper:",
          torch._functionalize_has_data_mutation(inner))
print("x itself untouched:", x.tolist())
# --8<-- [end:functional_tensor]
