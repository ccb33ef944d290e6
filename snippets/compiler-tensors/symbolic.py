"""Symbolic shapes: SymInt sizes, the ShapeEnv that owns them, and the guards they produce."""
import torch

torch.manual_seed(0)
torch.set_num_threads(1)

# --8<-- [start:sizes]
from torch._dynamo.source import LocalSource
from torch._subclasses.fake_tensor import FakeTensorMode
from torch.fx.experimental.symbolic_shapes import DimDynamic, ShapeEnv, StatelessSymbolicContext

shape_env = ShapeEnv()
sym_mode = FakeTensorMode(shape_env=shape_env)
all_dynamic = StatelessSymbolicContext(dynamic_sizes=[DimDynamic.DYNAMIC] * 3)
x = sym_mode.from_tensor(torch.randn(8, 1, 16), source=LocalSource("x"), symbolic_context=all_dynamic)
print("sizes:", x.shape, "| strides:", x.stride())
print("x.shape[0] is a", type(x.shape[0]).__name__, "with the hint", x.shape[0].node.hint)
print("ranges:", shape_env.var_to_range)
with sym_mode:
    print("torch.cat([x, x]).flatten():", torch.cat([x, x]).flatten().shape)
    print("x.expand(-1, 5, -1):", x.expand(-1, 5, -1).shape)
# --8<-- [end:sizes]

# --8<-- [start:guards]
with sym_mode:
    if x.shape[0] > 4:  # Python needs a bool: the ShapeEnv answers from the hint and records why
        pass
    if x.shape[2] % 2 == 0:
        pass
print("guards:", [str(g.expr) for g in shape_env.guards])
print("ranges:", shape_env.var_to_range)
with sym_mode:
    if x.shape[0] == 8:  # equality with a constant specialises the symbol
        pass
print("replacements:", shape_env.replacements, "| sizes now:", x.shape)
# --8<-- [end:guards]

# --8<-- [start:dynamo]
import re

import torch._dynamo
from torch._dynamo.eval_frame import _debug_get_cache_entry_list
from torch._guards import TracingContext


graphs = []


def show_graph_inputs(gm, example_inputs):
    """A Dynamo backend that prints its graph's inputs (fake tensors, symbols) and the ShapeEnv's ranges."""
    graphs.append(gm)
    inputs = [f"{n.name}={n.meta['example_value']!r}" for n in gm.graph.find_nodes(op="placeholder")]
    print(f"  new graph #{len(graphs)}:", ", ".join(inputs))
    print("  ranges:", TracingContext.get().fake_mode.shape_env.var_to_range)
    return gm.forward


def pick(x):
    if x.shape[0] > 4:  # a branch on a size is a guard, not a graph break
        return torch.cat([x, x]).sum(0)
    return x.sum(0)


torch._dynamo.reset()
compiled_pick = torch.compile(pick, backend=show_graph_inputs, dynamic=True)
for rows in (8, 6, 1, 3, 2):
    print(f"x[{rows}, 3]:")
    before = len(graphs)
    compiled_pick(torch.randn(rows, 3))
    if len(graphs) == before:
        print("  reused a cached graph")
print("shape guards of each cache entry, in lookup order (last used first):")
for i, entry in enumerate(_debug_get_cache_entry_list(pick.__code__)):
    guards = [re.sub(r"\s+#.*", "", line).replace("| ", "").replace("+- LAMBDA_GUARD: ", "").strip()
              for line in str(entry.guard_manager).splitlines() if "LAMBDA_GUARD: " in line and "size()" in line]
    sizes = [line.split("size=")[1].split("]")[0] + "]" for line in str(entry.guard_manager).splitlines()
             if "TENSOR_MATCH" in line and "L['x']" in line]
    print(f"  entry {i}: size={sizes[0]}", " and ".join(guards))
# --8<-- [end:dynamo]

# --8<-- [start:mark_unbacked]
def column_sums(x):
    return x.sum(0) * 2


def branchy_sums(x):
    if x.shape[0] > 2:
        return x.sum(0)
    return x.sum(0) * 2


graphs.clear()
torch._dynamo.reset()
compiled_sums = torch.compile(column_sums, backend=show_graph_inputs)
for rows in (1, 8, 0, 3):
    x = torch.randn(rows, 3)
    if rows == 1:
        torch._dynamo.decorators.mark_unbacked(x, 0)  # the first input's rows: unbacked
    print(f"x[{rows}, 3]:")
    before = len(graphs)
    compiled_sums(x)
    if len(graphs) == before:
        print("  reused a cached graph")
[placeholder] = [n for n in graphs[0].graph.find_nodes(op="placeholder")
                 if isinstance(n.meta["example_value"], torch.Tensor)]
rows_symbol = placeholder.meta["example_value"].shape[0]
print("hint of the unbacked size:", rows_symbol.node.hint)
torch._dynamo.reset()
x = torch.randn(4, 3)
torch._dynamo.decorators.mark_unbacked(x, 0)
try:
    torch.compile(branchy_sums, backend=show_graph_inputs, fullgraph=True)(x)
except torch._dynamo.exc.UserError as e:
    print(f"branch on it, fullgraph=True -> UserError: {str(e).splitlines()[0]}")
# --8<-- [end:mark_unbacked]
