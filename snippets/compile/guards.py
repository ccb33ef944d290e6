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

# --8<-- [start:where_guards_run]
import dis

code = entry.code  # what runs when this entry's guards pass
print("transformed code:", code.co_name)
print("the function's own code object:", code is scale_shift.__code__)
instructions = list(dis.get_instructions(code))
loaded = {re.sub(r"(__compiled_fn_\d+)_\w+", r"\1", i.argval)
          for i in instructions if i.opname == "LOAD_GLOBAL"}
print("globals it loads:", sorted(loaded))
print("comparisons in it:", sum(i.opname == "COMPARE_OP" for i in instructions))
root = entry.guard_manager.root
print("the guards are a", f"{type(root).__module__}.{type(root).__name__}")
check = entry.guard_manager.check
print("guards pass for x=float32[4], n=3:", check({"x": torch.randn(4), "n": 3}))
print("guards pass for x=float32[4], n=4:", check({"x": torch.randn(4), "n": 4}))
# The order in which lookup tries a code object's entries, on a function of its own.
def scaled(x, n):
    return x * n


static = torch.compile(scaled, backend=quiet_backend, dynamic=False)
for n in (3, 4):
    static(torch.randn(4), n)  # one entry for n=3, then one for n=4


def lookup_order():
    entries = _debug_get_cache_entry_list(scaled.__code__)
    return [next(f"n={n}" for n in (3, 4)
                 if e.guard_manager.check({"x": torch.randn(4), "n": n})) for e in entries]


print("entries in lookup order, after n=3 and n=4:", lookup_order())
static(torch.randn(4), 3)  # a hit on the older entry
print("after one more call with n=3:            ", lookup_order())
# --8<-- [end:where_guards_run]

# --8<-- [start:global_state]
import threading

from torch._dynamo.utils import guard_failures

torch._dynamo.reset()
graphs = []


def noting_backend(gm, example_inputs):
    graphs.append(gm)
    return gm.forward


g = torch.compile(scale_shift, backend=noting_backend)
x = torch.randn(4)


def call(label):
    tried = len(guard_failures[scale_shift.__code__])
    g(x, 3)
    failed = guard_failures[scale_shift.__code__][tried:]
    newest = re.sub(r"\s+#.*", "", failed[0].splitlines()[0]).strip() if failed else "-"
    print(f"{label:28} graphs: {len(graphs)}  newest entry failed on: {newest}")


call("first call")
with torch.no_grad():
    call("under torch.no_grad()")
torch.set_num_threads(2)
call("torch.set_num_threads(2)")
torch.set_num_threads(1)
with torch.autocast("cpu"):
    excluded_keys = torch._C._dispatch_tls_local_exclude_set()
    excluded = excluded_keys.has(torch._C.DispatchKey.AutocastCPU)
    call("inside torch.autocast('cpu')")
print("AutocastCPU excluded inside autocast:", excluded)
with torch.no_grad():
    seen = []
    thread = threading.Thread(target=lambda: seen.append(torch.is_grad_enabled()))
    thread.start()
    thread.join()
print("grad mode in a thread started under no_grad:", seen[0])
# --8<-- [end:global_state]

# --8<-- [start:matmul_precision]
torch._dynamo.reset()
graphs.clear()
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

# --8<-- [start:recompile_limit]
torch.compiler.reset()
limited_graphs, graph_runs = [], []


def numbering_backend(gm, example_inputs):
    limited_graphs.append(gm)
    number = len(limited_graphs)

    def run(*args):
        graph_runs.append(number)
        return gm.forward(*args)
    return run


def double(x):
    return x * 2


with torch._dynamo.config.patch(recompile_limit=2):
    d = torch.compile(double, backend=numbering_backend)
    dtypes = (torch.float32, torch.float64, torch.float16, torch.float32, torch.int64)
    for dtype in dtypes:
        compiled, ran = len(limited_graphs), len(graph_runs)
        d(torch.ones(3, dtype=dtype))
        grew = len(limited_graphs) > compiled
        new = "compiled a graph" if grew else "compiled nothing"
        how = f"ran graph #{graph_runs[-1]}" if len(graph_runs) > ran else "ran eagerly"
        print(f"{str(dtype):14} {new}, {how}")
# --8<-- [end:recompile_limit]

# --8<-- [start:mark_dynamic]
torch.compiler.reset()
first = torch.randn(4)
torch._dynamo.mark_dynamic(first, 0)
f(first, 3)
print(f"mark_dynamic before the first call -> new graph #{len(compiles)}: {compiles[-1]}")
f(torch.randn(8), 3)
print("x[8] afterwards -> graphs compiled:", len(compiles))
# --8<-- [end:mark_dynamic]
