"""TORCH_LOGS artifacts, set_logs, and what each prints."""
# --8<-- [start:setup]
import contextlib
import os
import re
import sys
import tempfile

import torch
import torch._dynamo
import torch._logging

torch.manual_seed(0)
torch.set_num_threads(1)

PREFIX = re.compile(r"^[VIWEDC]\d{4} [\d:.]+ \d+ \S+:\d+\] ")  # level, date, time, thread, file:line


@contextlib.contextmanager
def torch_log(**artifacts):
    """Turn on torch._logging artifacts, send what they write to stderr into a list of lines
    (without the date/thread/file prefix), and turn the logs off again."""
    lines = []
    sys.stderr.flush()
    saved, real_stderr = os.dup(2), sys.stderr
    with tempfile.TemporaryFile(mode="w+") as sink:
        os.dup2(sink.fileno(), 2)  # what C++ writes
        sys.stderr = sink  # set_logs makes its handlers on sys.stderr (in Jupyter, not file descriptor 2)
        torch._logging.set_logs(**artifacts)
        try:
            yield lines
        finally:
            sys.stderr = real_stderr
            torch._logging.set_logs()  # back to the defaults, on the real stderr
            sink.flush()
            os.dup2(saved, 2)
            os.close(saved)
            sink.seek(0)
            lines.extend(PREFIX.sub("", line) for line in sink.read().splitlines())


def tidy(line):
    """A log line without what differs between machines: source comments, file paths, object ids."""
    line = re.sub(r"\s+# .*$", "", line)  # the source comment at the end of a guard
    line = re.sub(r" (at|in) \S+\.(py|md):\d+$", "", line)  # "... in /path/file.py:12"
    line = re.sub(r" \(\S+\.(py|md):\d+\)", "", line)  # "(/path/file.py:12)"
    return re.sub(r"\b\d{9,}\b", "<id>", line).rstrip()


def show(lines, keep, limit=12):
    """Print the lines that contain one of the strings in keep, at most limit of them, tidied."""
    chosen = [tidy(line) for line in lines if any(k in line for k in keep)]
    for line in chosen[:limit]:
        print(line)


class CountingBackend:
    """A backend that counts the graphs it is given and runs each as captured."""

    def __init__(self):
        self.graphs = 0

    def __call__(self, gm, example_inputs):
        self.graphs += 1
        self.last = gm
        return gm.forward
# --8<-- [end:setup]


# --8<-- [start:breaks_recompiles]
def scale(x, n):
    y = torch.sin(x) * n
    print("side effect")  # a graph break
    return y.cos()


torch._dynamo.reset()
compiled = torch.compile(scale, backend="eager")
with torch_log(graph_breaks=True, recompiles=True) as lines:
    compiled(torch.randn(4), 2)
    compiled(torch.randn(4), 3)  # a new int: the guard L['n'] == 2 fails
show(lines, ["Graph break in", "Graph break (", "Graph Break Reason", "Explanation", "Recompiling", "triggered by",
             "- 0/0"])
# --8<-- [end:breaks_recompiles]

# --8<-- [start:guards_aot]
def affine(x):
    return torch.sin(x) * 2 + 1


torch._dynamo.reset()
with torch_log(guards=True, aot_graphs=True) as lines:
    torch.compile(affine, backend="aot_eager")(torch.randn(4))
show(lines, ["TREE_GUARD_MANAGER", "TENSOR_MATCH", "Forward graph", "def forward", "aten."])
# --8<-- [end:guards_aot]

# timeout="600": Inductor compiles the function and writes its C++ and Python code; in the
# builds of make test (three editions side by side on two cores) it took 49 to 51 s, past
# 120 s with the machine more loaded, and 198 s of 300 beside two busy loops
# --8<-- [start:output_code]
import torch._inductor.config

torch._dynamo.reset()
with torch._inductor.config.patch(fx_graph_cache=False):  # generate code even when the cache has it
    with torch_log(output_code=True) as lines:
        torch.compile(affine)(torch.randn(8))  # Inductor
in_call = in_main = False
for line in lines:
    body = line.split("[__output_code] ", 1)[-1]
    if body.startswith(("# AOT ID", "cpp_fused_")):
        print(body[:60] + (" ..." if len(body) > 60 else ""))
    in_call = in_call or body.strip().startswith("def call(")
    if in_call:
        print(body)
        in_call = not body.strip().startswith("return")
    in_main = (in_main or body.startswith("if __name__")) and bool(body.strip())
    if in_main:  # what running the file on its own does
        print(body)
    if body.startswith("Output code written to"):
        print(re.sub(r"to: .*", "to: <cache dir>/<hash>.py", body))
        break
# --8<-- [end:output_code]


# --8<-- [start:limit]
import torch._dynamo.config as dynamo_config

print("recompile_limit:", dynamo_config.recompile_limit)
print("cache_size_limit (the old name):", dynamo_config.cache_size_limit)
with dynamo_config.patch(cache_size_limit=2):  # the old name sets the new one
    print("after setting cache_size_limit=2, recompile_limit:", dynamo_config.recompile_limit)
print("accumulated_recompile_limit:", dynamo_config.accumulated_recompile_limit)
# --8<-- [end:limit]

# --8<-- [start:limit_hit]
def by_dtype(x):
    return x * 2


torch._dynamo.reset()
backend = CountingBackend()
with dynamo_config.patch(recompile_limit=2), torch_log() as lines:  # torch_log(): the default logs
    compiled = torch.compile(by_dtype, backend=backend)
    for dtype in (torch.float32, torch.float64, torch.float16, torch.bfloat16):
        compiled(torch.ones(3, dtype=dtype))
print("graphs compiled for 4 dtypes:", backend.graphs)
show(lines, ["hit config", "function:", "last reason:", "To log all"])
# --8<-- [end:limit_hit]

# --8<-- [start:stance]
def shifted(x):
    return torch.sin(x) + 1


torch._dynamo.reset()
backend = CountingBackend()
compiled = torch.compile(shifted, backend=backend)
compiled(torch.randn(4))
print("graphs after the first call:", backend.graphs)

with torch.compiler.set_stance("force_eager"):  # run the original Python, compile nothing
    compiled(torch.randn(5))
print("graphs after a call under force_eager:", backend.graphs)

with torch.compiler.set_stance("fail_on_recompile"):
    compiled(torch.randn(4))  # guards pass: fine
    try:
        compiled(torch.randn(6))  # a new size would recompile
    except RuntimeError as error:
        message = re.sub(r"filename: '.*?', (.*) line number: \d+", r"\1 ...", str(error))
        print(f"{type(error).__name__}: {message}")

with torch.compiler.set_stance("eager_on_recompile"):
    out = compiled(torch.randn(7))  # would recompile: runs eagerly instead
print("graphs after a call under eager_on_recompile:", backend.graphs, "| result correct:",
      out.shape == (7,))

torch._dynamo.reset()
backend = CountingBackend()
compiled = torch.compile(shifted, backend=backend)
with torch.compiler.set_stance("eager_then_compile"):
    graphs = []
    for size in (4, 5, 6, 7):
        compiled(torch.randn(size))
        graphs.append(backend.graphs)
print("eager_then_compile, sizes 4, 5, 6, 7: graphs after each call", graphs)
# --8<-- [end:stance]

# --8<-- [start:skip_guards]
SCALE = 10


def scaled(x, n):
    return x * n * SCALE  # a global: Dynamo guards its value


torch._dynamo.reset()
backend = CountingBackend()
compiled = torch.compile(scaled, backend=backend, dynamic=False)
x = torch.ones(2)
compiled(x, 1)
compiled(x, 2)  # fails n == 1: the entries differ only in n
print("warmed up with n=1 and n=2: graphs", backend.graphs)
SCALE = 100
with torch.compiler.set_stance(skip_guard_eval_unsafe=True):
    print("SCALE = 100, skip_guard_eval_unsafe:", compiled(x, 2), "| eager:", scaled(x, 2))
    try:
        compiled(torch.ones(3), 2)
    except RuntimeError as error:
        print("a new size:", type(error).__name__ + ":", str(error).split(". ")[0])
print("SCALE = 100, default stance:", compiled(x, 2), "| graphs", backend.graphs)
# --8<-- [end:skip_guards]

# --8<-- [start:item_break]
def normalise(x):
    total = x.sum().item()  # a Python float: Dynamo cannot keep it in the graph
    return x / total


with torch_log() as lines:  # what the default logging prints, collected
    report = torch._dynamo.explain(normalise)(torch.rand(6) + 0.5)
show(lines, ["Graph break from", "capture_scalar_outputs = True"])
print("graphs:", report.graph_count, "| breaks:", report.graph_break_count)
for reason in report.break_reasons:
    print("reason:", reason.reason.splitlines()[0])
# --8<-- [end:item_break]

# --8<-- [start:fullgraph_item]
torch._dynamo.reset()
backend = CountingBackend()
x = torch.rand(6) + 0.5
same = torch.allclose(torch.compile(normalise, fullgraph=True, backend=backend)(x), normalise(x))
print("fullgraph=True: graphs:", backend.graphs, "| matches eager:", same)
print(backend.last.code.strip())
# --8<-- [end:fullgraph_item]

# --8<-- [start:fullgraph_branch]
def clip_if_large(x):
    if x.sum() > 10:  # a branch on a tensor's value
        return x.clamp(max=1.0)
    return x


torch._dynamo.reset()
try:
    torch.compile(clip_if_large, fullgraph=True, backend="eager")(torch.rand(6))
except torch._dynamo.exc.Unsupported as error:
    lines = str(error).splitlines()
    print(type(error).__qualname__ + ":", "\n".join(lines[:2]))
    print("\n".join(line for line in lines if line.lstrip().startswith("Hint:")))
    user = lines.index("from user code:")  # then the file and line, the source line, a last hint
    print("...", lines[user], "...", lines[user + 2].strip(), "...", lines[-1], sep="\n")
print("the fix, torch.where, is one graph:",
      torch._dynamo.explain(lambda x: torch.where(x.sum() > 10, x.clamp(max=1.0), x))(torch.rand(6)).graph_count)
# --8<-- [end:fullgraph_branch]

# --8<-- [start:int_recompiles]
def decay(w, step):
    return w * 0.9**step


for dynamic in (False, None):
    torch._dynamo.reset()
    backend = CountingBackend()
    compiled = torch.compile(decay, backend=backend, dynamic=dynamic)
    for step in range(6):
        compiled(torch.ones(3), step)
    print(f"dynamic={dynamic}: 6 calls with step=0..5 compiled {backend.graphs} graphs")

torch._dynamo.reset()
backend = CountingBackend()
compiled = torch.compile(decay, backend=backend, dynamic=False)
for step in range(6):
    compiled(torch.ones(3), torch.tensor(step))  # a tensor: its value is data, not a guard
print(f"dynamic=False, step as a tensor: {backend.graphs} graph")
# --8<-- [end:int_recompiles]
