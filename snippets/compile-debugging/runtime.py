"""At run time: compiled autograd, regional compilation, CUDA graphs."""
# timeout="300": Inductor compiles the forward and the whole captured backward; in the builds
# of make test (three editions side by side on two cores) it took 93 to 127 s
# --8<-- [start:compiled_autograd]
import time

import torch
import torch._dynamo
from torch._dynamo import compiled_autograd

torch.manual_seed(0)
torch.set_num_threads(1)

captured = []


def keep_graph(gm, example_inputs):
    """The backend for the backward graph: keep it, run it as captured."""
    captured.append(gm)
    return gm.forward


torch._dynamo.reset()
layer = torch.nn.Linear(3, 2)
x = torch.randn(4, 3)
eager_grad = torch.autograd.grad(layer(x).sum(), layer.weight)[0]
layer.zero_grad()
with compiled_autograd._enable(torch.compile(backend=keep_graph)):
    loss = torch.compile(layer, backend="aot_eager")(x).sum()
    loss.backward()  # the autograd engine's work is traced into one FX graph, then compiled
(graph,) = captured
calls = [n for n in graph.graph.nodes if n.op == "call_function"]
print("backward graph:", len(calls), "calls; the autograd nodes and the AOT backward ops in it:")
for node in calls:
    name = getattr(node.target, "__name__", str(node.target))
    if "getitem" not in name:
        print("   ", name)
print("weight.grad matches eager:", torch.allclose(layer.weight.grad, eager_grad))
# --8<-- [end:compiled_autograd]

# --8<-- [start:compiled_autograd_flag]
from torch._dynamo.utils import counters


def train_step(x):
    loss = layer(x).sum()
    loss.backward()  # inside the compiled function
    return loss


def forward(x):
    return layer(x).sum()


torch._dynamo.reset()
with torch._dynamo.config.patch(compiled_autograd=True):  # set before torch.compile
    step = torch.compile(train_step, backend="aot_eager")
    fwd = torch.compile(forward, backend="aot_eager")
    counters.clear()
    step(x)
    captures = counters["compiled_autograd"]["captures"]
    print("backward inside the compiled function, graphs captured:", captures)
    counters.clear()
    fwd(x).backward()
    captures = counters["compiled_autograd"]["captures"]
    print("backward after the compiled function returned:", captures)
# --8<-- [end:compiled_autograd_flag]

# --8<-- [start:regional]
import importlib
import pathlib
import sys

# The block lives in a module of its own, as in a real model: Dynamo guards the globals of the
# inlined Block.forward through its module, which must be importable.
pathlib.Path("blocks.py").write_text("""
import torch

class Block(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(16, 16)
        self.norm = torch.nn.LayerNorm(16)

    def forward(self, x):
        return x + torch.relu(self.norm(self.fc(x)))
""")
sys.path.insert(0, ".")
Block = importlib.import_module("blocks").Block


def stack(layers=24):
    torch.manual_seed(0)
    return torch.nn.Sequential(*[Block() for _ in range(layers)])


class Graphs:
    """A backend that counts graphs and their nodes, then hands them to aot_eager."""

    def __init__(self):
        self.sizes = []

    def __call__(self, gm, example_inputs):
        self.sizes.append(len(gm.graph.nodes))
        return torch._dynamo.lookup_backend("aot_eager")(gm, example_inputs)


x = torch.randn(4, 16)
torch.compile(Block(), backend="aot_eager")(x)  # warm Dynamo up, so neither side pays for that


def first_call(model):
    """CPU seconds of this thread for the first call, which traces and compiles."""
    start = time.thread_time()
    out = model(x)
    return time.thread_time() - start, out


torch._dynamo.reset()
whole = Graphs()
whole_seconds, whole_out = first_call(torch.compile(stack(), backend=whole))

torch._dynamo.reset()
regional = Graphs()
model = stack()
for block in model:
    block.compile(backend=regional)  # nn.Module.compile: compile this block's forward in place
regional_seconds, regional_out = first_call(model)

print("whole model: graphs", len(whole.sizes), "with nodes", whole.sizes)
print("each block:  graphs", len(regional.sizes), "with nodes", regional.sizes)
print("same output:", torch.allclose(whole_out, regional_out))
from torch._dynamo.eval_frame import _debug_get_cache_entry_list

print("cache entries on Block.forward:", len(_debug_get_cache_entry_list(Block.forward)),
      "| on nn.Module._call_impl:", len(_debug_get_cache_entry_list(torch.nn.Module._call_impl)))
print(f"first call, whole model / per block: {whole_seconds / regional_seconds:.1f}x (measured; claim: > 2)")
# --8<-- [end:regional]


# --8<-- [start:aoti]
import os
import subprocess


class Head(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(8, 4)

    def forward(self, x):
        return torch.softmax(self.fc(x), dim=-1)


torch.manual_seed(0)
head = Head().eval()
batch = torch.export.Dim("batch", min=1, max=64)
program = torch.export.export(head, (torch.randn(3, 8),), dynamic_shapes={"x": {0: batch}})
package = torch._inductor.aoti_compile_and_package(program, package_path=os.path.abspath("head.pt2"))
loaded = torch._inductor.aoti_load_package(package)
for rows in (3, 64):
    x = torch.randn(rows, 8)
    print(f"batch {rows}: matches eager:", torch.allclose(loaded(x), head(x), atol=1e-6))

# Inputs the export did not allow, given to the package in a fresh process (its C++ errors
# go to stderr with paths; the Python exception is what the caller gets).
BAD_INPUTS = """
import torch
loaded = torch._inductor.aoti_load_package("head.pt2")
for bad in (torch.randn(65, 8), torch.randn(3, 7), torch.randn(3, 8, dtype=torch.float64)):
    try:
        out = loaded(bad)
        print(f"  {tuple(bad.shape)} {bad.dtype}: ran, output {tuple(out.shape)}")
    except RuntimeError as error:
        print(f"  {tuple(bad.shape)} {bad.dtype}: RuntimeError: {str(error).splitlines()[0]}")
"""
for check in ("0", "1"):
    print(f"AOTI_RUNTIME_CHECK_INPUTS={check}:")
    done = subprocess.run([sys.executable, "-c", BAD_INPUTS], capture_output=True, text=True, timeout=120,
                          env={**os.environ, "AOTI_RUNTIME_CHECK_INPUTS": check})
    print(done.stdout, end="")
# --8<-- [end:aoti]
