"""Dynamo captures a Python frame into an FX graph and hands it to a backend."""
# --8<-- [start:setup]
import torch
import torch._dynamo

torch.manual_seed(0)
torch.set_num_threads(1)  # Inductor and the guards both read the thread count


def describe(example_inputs):
    """Shapes of the example inputs a backend receives (SymInt for a symbolic size)."""
    return [tuple(t.shape) if isinstance(t, torch.Tensor) else type(t).__name__ for t in example_inputs]
# --8<-- [end:setup]


# --8<-- [start:capture]
def printing_backend(gm: torch.fx.GraphModule, example_inputs):
    print("backend got a", type(gm).__name__, "with inputs", describe(example_inputs))
    print(gm.code.strip())
    return gm.forward  # run the captured graph as is


def sin_relu(x, y):
    a = torch.sin(x) + y
    return a.relu() * 2


compiled = torch.compile(sin_relu, backend=printing_backend)
x, y = torch.randn(4), torch.randn(4)
print("matches eager:", torch.equal(compiled(x, y), sin_relu(x, y)))
print("second call, same shapes: no new graph")
compiled(torch.randn(4), torch.randn(4))
# --8<-- [end:capture]

# --8<-- [start:capture_module]
torch._dynamo.reset()
layer = torch.nn.Sequential(torch.nn.Linear(3, 2), torch.nn.Tanh())
compiled_layer = torch.compile(layer, backend=printing_backend)
print("wrapper:", type(compiled_layer).__name__, "around", type(compiled_layer._orig_mod).__name__)
out = compiled_layer(torch.randn(5, 3))
# --8<-- [end:capture_module]
