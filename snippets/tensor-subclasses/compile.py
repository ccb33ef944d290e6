"""torch.compile and a wrapper subclass: why it needs __tensor_flatten__."""
from pathlib import Path

import torch

torch.manual_seed(0)
torch.set_num_threads(1)

# Run on its own, this file first runs what the page defined in earlier blocks
# (the region `define` of int8.py).
_int8 = (Path(__file__).parent / "int8.py").read_text()
exec(_int8.split("# --8<-- [start:define]\n")[1].split("# --8<-- [end:define]")[0])

# --8<-- [start:no_flatten]
import re


def show_graph(gm, example_inputs):
    """A backend that prints the graph it is given and runs it as it is."""
    print(gm.code.strip())
    return gm.forward


torch.manual_seed(0)
small = torch.nn.Linear(64, 32)
small.weight = torch.nn.Parameter(Int8WeightTensor.from_float(small.weight.detach()),
                                  requires_grad=False)
x = torch.randn(4, 64)
try:
    with torch.no_grad():
        torch.compile(small, backend=show_graph, fullgraph=True)(x)
except torch._dynamo.exc.Unsupported as e:
    message = str(e)
    print(type(e).__name__ + ":", message.splitlines()[0])
    print(next(line for line in message.splitlines() if "Explanation" in line))
    print("Dynamo saw the weight as:",
          re.search(r"UserDefinedObjectVariable\(\w+\)", message)[0])
torch._dynamo.reset()
# --8<-- [end:no_flatten]

# --8<-- [start:flatten]
import hashlib

from torch.utils._python_dispatch import is_traceable_wrapper_subclass


def __tensor_flatten__(self):
    """The names of the inner tensors, and what else it takes to rebuild the wrapper."""
    return ["qdata", "scale"], self.transposed


@classmethod
def __tensor_unflatten__(cls, inner_tensors, transposed, outer_size, outer_stride):
    return cls(inner_tensors["qdata"], inner_tensors["scale"], transposed)


def _stable_hash_for_caching(self):
    """AOTAutograd's cache key for this tensor: its layout, and the code run on it."""
    code = [fn.__code__ for fn in (type(self).linear, *IMPLEMENTATIONS.values())]
    key = [type(self).__qualname__, tuple(self.shape), self.transposed,
           [(c.co_code, c.co_consts, c.co_names) for c in code]]
    return hashlib.sha256(repr(key).encode()).hexdigest()


Int8WeightTensor.__tensor_flatten__ = __tensor_flatten__
Int8WeightTensor.__tensor_unflatten__ = __tensor_unflatten__
Int8WeightTensor._stable_hash_for_caching = _stable_hash_for_caching

wt = small.weight.t()
names, context = wt.__tensor_flatten__()
print("flatten:", names, "| context:", context)
rebuilt = Int8WeightTensor.__tensor_unflatten__(
    {name: getattr(wt, name) for name in names}, context, wt.shape, wt.stride())
print("unflatten:", rebuilt)
print("traceable wrapper subclass:", is_traceable_wrapper_subclass(wt))
# --8<-- [end:flatten]

# --8<-- [start:graph]
from torch._dynamo.backends.common import aot_autograd


def show_inputs(gm, example_inputs):
    for node in gm.graph.find_nodes(op="placeholder"):
        value = node.meta["val"]
        kind = type(value).__name__
        print(f"  {node.name}: {kind} {value.dtype} {tuple(value.shape)}")
    return show_graph(gm, example_inputs)


compiled = torch.compile(small, backend=aot_autograd(fw_compiler=show_inputs),
                         fullgraph=True)
with torch.no_grad():
    print("the graph's inputs:")
    out = compiled(x)
    print("same as eager:", torch.allclose(out, small(x)))
# --8<-- [end:graph]
