"""Guards: the checks Dynamo installs before reusing a compiled graph, and recompiles."""
import torch
import torch._dynamo

torch.manual_seed(0)
torch.set_num_threads(1)


# --8<-- [start:guard_tree]
import json
import re

from torch._dynamo.eval_frame import _debug_get_cache_entry_list

torch._dynamo.reset()
OFFSET = 2.0


def scale_shift(x, n):
    return x * n + OFFSET


def quiet_backend(gm, example_inputs):
    return gm.forward


torch.compile(scale_shift, backend=quiet_backend)(torch.randn(4), 3)
[entry] = _debug_get_cache_entry_list(scale_shift.__code__)
for line in str(entry.guard_manager).splitlines():
    if "MATCH" in line:  # the guards on our inputs and globals, without source comments
        print(re.sub(r"\s+#.*", "", line).replace("| ", "").strip())
    if "GLOBAL_STATE" in line:
        print("+- GLOBAL_STATE checks:", ", ".join(json.loads(line.split(" against ", 1)[1])))
# Where the guard's key set comes from: the tensor's keys, plus and minus thread-local sets.
print("x's own keys:         ", torch._C._dispatch_keys(torch.randn(4)))
print("thread-local included:", torch._C._dispatch_tls_local_include_set())
print("AutocastCPU thread-locally excluded:",
      torch._C._dispatch_tls_local_exclude_set().has(torch._C.DispatchKey.AutocastCPU))
# --8<-- [end:guard_tree]

# --8<-- [start:matmul_precision]
torch._dynamo.reset()
graphs = []


def noting_backend(gm, example_inputs):
    graphs.append(gm)
    return gm.forward


g = torch.compile(scale_shift, backend=noting_backend)
g(torch.randn(4), 3)
before = torch.backends.cuda.matmul.fp32_precision
torch.backends.cuda.matmul.fp32_precision = "ieee"  # a CUDA setting; it can be set without a GPU
g(torch.randn(4), 3)
print(f"cuda.matmul.fp32_precision {before!r} -> 'ieee', same call again: graphs compiled: {len(graphs)}")
torch.backends.cuda.matmul.fp32_precision = before
old = torch.get_float32_matmul_precision()
torch.set_float32_matmul_precision("high")  # also turns on allow_tf32, a GLOBAL_STATE entry
g(torch.randn(4), 3)
print(f"set_float32_matmul_precision({old!r} -> 'high'), same call again: graphs compiled: {len(graphs)}")
torch.set_float32_matmul_precision(old)
# --8<-- [end:matmul_precision]

# --8<-- [start:recompile_count]
torch._dynamo.reset()
compiles = []


def graph_inputs(gm):
    """Placeholder names with their example values: a shape, or a symbol for a SymInt."""
    shown = []
    for node in gm.graph.find_nodes(op="placeholder"):
        value = node.meta["example_value"]
        shown.append(f"{node.name}={tuple(value.shape) if isinstance(value, torch.Tensor) else value}")
    return ", ".join(shown)


def counting_backend(gm, example_inputs):
    compiles.append(graph_inputs(gm))
    return gm.forward


f = torch.compile(scale_shift, backend=counting_backend)
calls = [
    ("x[4], n=3", torch.randn(4), 3),
    ("x[4], n=3", torch.randn(4), 3),
    ("x[8], n=3", torch.randn(8), 3),
    ("x[16], n=3", torch.randn(16), 3),
    ("x[16], n=4", torch.randn(16), 4),
    ("x[16], n=5", torch.randn(16), 5),
]
for label, x, n in calls:
    before = len(compiles)
    f(x, n)
    news = f"new graph #{len(compiles)}: {compiles[-1]}" if len(compiles) > before else "reused"
    print(f"{label:11} -> {news}")
# --8<-- [end:recompile_count]

# --8<-- [start:recompile_reasons]
from torch._dynamo.utils import guard_failures

OFFSET = 3.0  # a global the graph read: its guard fails on the next call
f(torch.randn(16), 5)
print(f"after OFFSET = 3.0 -> new graph #{len(compiles)}: {compiles[-1]}")
print("guard failures that caused recompiles:")
for reason in guard_failures[scale_shift.__code__]:
    print("  ", re.sub(r"\s+#.*", "", reason.splitlines()[0]))
# --8<-- [end:recompile_reasons]

# --8<-- [start:reset]
torch.compiler.reset()
f(torch.randn(16), 5)
print(f"after torch.compiler.reset() -> new graph #{len(compiles)}: {compiles[-1]}")
print("recompile limit per code object:", torch._dynamo.config.recompile_limit)
# --8<-- [end:reset]

# --8<-- [start:mark_dynamic]
torch.compiler.reset()
first = torch.randn(4)
torch._dynamo.mark_dynamic(first, 0)
f(first, 3)
print(f"mark_dynamic before the first call -> new graph #{len(compiles)}: {compiles[-1]}")
f(torch.randn(8), 3)
print("x[8] afterwards -> graphs compiled:", len(compiles))
# --8<-- [end:mark_dynamic]
