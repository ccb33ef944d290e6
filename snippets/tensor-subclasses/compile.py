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

import warnings

from torch._dynamo.eval_frame import _debug_get_cache_entry_list
from torch._dynamo.utils import counters

graphs = []


def keep_graph(gm, example_inputs):
    graphs.append(gm)
    return gm.forward


counters.clear()
with torch.no_grad(), warnings.catch_warnings():
    warnings.simplefilter("ignore")  # Dynamo's advice on the graph breaks below
    same = torch.allclose(torch.compile(small, backend=keep_graph)(x), small(x))
print("without fullgraph: same as eager", same)
for reason in sorted(counters["graph_break"]):
    print("  graph break:", reason.splitlines()[0])
for name, fn in [("nn.Linear.forward", torch.nn.Linear.forward),
                 ("__torch_dispatch__", Int8WeightTensor.__torch_dispatch__.__func__)]:
    kept = len(_debug_get_cache_entry_list(fn.__code__))
    print(f"  compiled code kept for {name}: {kept}")
for gm in graphs:
    print("  a graph of", [n.name for n in gm.graph.find_nodes(op="placeholder")])
    print("    computing", [n.name for n in gm.graph.nodes
                            if n.op in ("call_function", "call_method")])
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
    """AOTAutograd's cache key for this tensor, which is then this value alone: what
    the default key holds (the wrapper's metadata, the flatten context, each inner
    tensor's metadata), and the class with the code run on it."""
    names, context = self.__tensor_flatten__()
    inner = [(name, t.dtype, tuple(t.shape), t.stride(), str(t.device))
             for name, t in ((name, getattr(self, name)) for name in names)]
    cls = type(self)
    code = [fn.__code__ for fn in (cls.__torch_dispatch__.__func__, cls.linear,
                                   *IMPLEMENTATIONS.values())]
    key = [cls.__qualname__, tuple(self.shape), self.dtype, str(self.device),
           self.requires_grad, context, inner,
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

# --8<-- [start:stale_cache]
import sys

from torch._inductor.utils import fresh_cache

# Two DeprecationWarnings that Inductor's imports and code loading raise on this Python,
# neither about subclasses: filtered, to keep them out of the outputs below.
warnings.filterwarnings("ignore", message=r"`torch\.jit\.script_method` is deprecated")
warnings.filterwarnings("ignore", message=r"BuiltinImporter\.module_repr\(\)")
# The cache pickles a class by its module and name, and is bypassed for a class it
# cannot find there. This page runs its blocks in a namespace that is not the module
# `__main__`, so the class is put where its name says it is (a notebook has it there).
sys.modules["__main__"].Int8WeightTensor = Int8WeightTensor

stable_hash = Int8WeightTensor._stable_hash_for_caching
original = Int8WeightTensor.linear


def edited(self, x):
    """An edit of the implementation: twice what it computed before."""
    return 2 * original(self, x)


def compile_and_compare(label):
    torch._dynamo.reset()
    counters.clear()
    with torch.no_grad(), warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        same = torch.allclose(torch.compile(small)(x), small(x))
    cache = next(outcome for outcome in ("hit", "miss", "bypass")
                 if counters["aot_autograd"][f"autograd_cache_{outcome}"])
    warned = any("_stable_hash_for_caching" in str(w.message) for w in caught)
    print(f"{label:<28} cache {cache:<4}  warned {warned!s:<5}  same as eager: {same}")


with fresh_cache():  # an empty Inductor cache, removed afterwards
    del Int8WeightTensor._stable_hash_for_caching
    compile_and_compare("no hash, linear as it was")
    Int8WeightTensor.linear = edited
    compile_and_compare("no hash, linear edited")
    Int8WeightTensor._stable_hash_for_caching = stable_hash
    compile_and_compare("with the hash, linear edited")
Int8WeightTensor.linear = original
torch._dynamo.reset()
# --8<-- [end:stale_cache]

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
