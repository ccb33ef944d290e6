"""Tools that work on what a compile leaves behind: tlparse, depyf, the minifier, the compile caches."""
# --8<-- [start:setup]
import json
import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import torch

torch.manual_seed(0)
torch.set_num_threads(1)


def run_python(script, code, timeout=240, **env):
    """Write code to the file script (in the current directory) and run it in a fresh Python
    with the variables env added to the environment; return what it printed to stdout."""
    Path(script).write_text(textwrap.dedent(code))
    done = subprocess.run([sys.executable, script], capture_output=True, text=True, timeout=timeout,
                          env={**os.environ, **env})
    if done.returncode != 0:
        raise RuntimeError(f"{script} failed:\n{done.stderr[-3000:]}")
    return done.stdout
# --8<-- [end:setup]


# --8<-- [start:trace]
JOB = """
import torch
torch.set_num_threads(1)

def scale(x, n):
    y = torch.sin(x) * n
    print("side effect")  # a graph break
    return y.cos()

compiled = torch.compile(scale, backend="aot_eager")
compiled(torch.randn(4), 2)
compiled(torch.randn(4), 3)  # a recompile
"""
run_python("job.py", JOB, TORCH_TRACE="trace")  # the structured trace goes to ./trace
print("trace files:", [re.sub(r"_\w{8}\.log$", "_<random>.log", name) for name in os.listdir("trace")])
tlparse = os.path.join(os.path.dirname(sys.executable), "tlparse")
version = subprocess.run([tlparse, "--version"], capture_output=True, text=True).stdout.strip()
(log,) = Path("trace").iterdir()
subprocess.run([tlparse, str(log), "-o", "tl_out", "--no-browser"], check=True, capture_output=True, timeout=60)
print(version, "wrote:", sorted(p.name for p in Path("tl_out").iterdir() if p.is_file()))
# --8<-- [end:trace]

# --8<-- [start:trace_index]
directory = json.loads(Path("tl_out/compile_directory.json").read_text())
for compile_id, entry in directory.items():
    names = [re.sub(r"_\d+(\.\w+)$", r"\1", artifact["name"]) for artifact in entry["artifacts"]]
    print(f"{compile_id:8}", ", ".join(names))
(reasons,) = Path("tl_out").glob("*/recompile_reasons_*.json")
print("recompile_reasons:", reasons.read_text().splitlines()[0].split("#")[0].strip())
# --8<-- [end:trace_index]

# --8<-- [start:cache_entries]
import dis

from torch._dynamo.eval_frame import _debug_get_cache_entry_list


def shift(x, n):
    return torch.sin(x) + n


torch._dynamo.reset()
compiled = torch.compile(shift, backend="eager", dynamic=False)
compiled(torch.randn(4), 2)
compiled(torch.randn(4), 3)  # fails the guard n == 2: a second entry
entries = _debug_get_cache_entry_list(shift)  # what hangs on shift.__code__, newest first
print("cache entries on shift's code object:", len(entries))
loaded = set()
for entry in entries:
    passes = {n: entry.guard_manager.check({"x": torch.randn(4), "n": n}) for n in (2, 3)}
    names = {re.sub(r"_\d+_[0-9a-f_]{36}$", "_<n>", str(instruction.argval))
             for instruction in dis.get_instructions(entry.code) if instruction.opname == "LOAD_GLOBAL"}
    loaded |= names
    print(f"  compile {entry.compile_id}: guards pass for n=2: {passes[2]}, for n=3: {passes[3]};",
          "calls", " ".join(sorted(n for n in names if n.startswith("__compiled_fn"))))
print("names in the transformed code that mention a guard:", [n for n in loaded if "guard" in n.lower()])
# --8<-- [end:cache_entries]

# --8<-- [start:depyf]
import glob
import warnings

# astor, which depyf imports, reads ast.Num, deprecated since Python 3.12: a warning about the Python, not depyf
warnings.filterwarnings("ignore", category=DeprecationWarning, module="astor")
with warnings.catch_warnings():
    warnings.simplefilter("ignore", ResourceWarning)  # depyf 0.20 leaves files it reads unclosed
    import depyf


def affine(x, n):
    y = torch.sin(x) * n
    return y.cos() + 1


uuid = re.compile(r"_[0-9a-f]{8}(_[0-9a-f]{4}){3}_[0-9a-f]{12}")
numbered = re.compile(r"__compiled_fn_\d+")  # a counter over every graph this process compiled


def tidy(text):
    return numbered.sub("__compiled_fn_<n>", uuid.sub("_<uuid>", text))


torch._dynamo.reset()
compiled = torch.compile(affine, backend="eager")
try:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("ignore")  # Python 3.12+ deprecations inside copy and astor are not the example's
        warnings.simplefilter("always", UserWarning)  # depyf's own advice, even if given before
        with depyf.prepare_debug("depyf_out"):  # dump what Dynamo makes of each frame, as Python
            compiled(torch.randn(4), 2)
except torch._dynamo.exc.InternalTorchDynamoError as error:  # depyf 0.20 cannot read Python 3.13's bytecode
    print(f"Python {sys.version_info.major}.{sys.version_info.minor}, depyf failed inside Dynamo:", error)
else:
    for warning in caught:
        print(f"{warning.category.__name__} from depyf:", str(warning.message).split(": ", 1)[1])
    print("files:", sorted(tidy(os.path.basename(p)) for p in glob.glob("depyf_out/*.py")))
    source = tidy(Path("depyf_out/full_code_for_affine_0.py").read_text())
    start = source.index("def __transformed_code_0_for_affine")
    print(source[start:source.index("#============ end of affine")].strip())
    print("--- from the guard function __guard_0_for_affine, the guards on the arguments:")
    for line in source.splitlines():
        if "__guard_hit and" in line and ("L['n']" in line or "check_tensor(L['x']" in line):
            print(re.sub(r"\s+#.*$", "", line).replace("__guard_hit = __guard_hit and ", "    and "))
# --8<-- [end:depyf]

# --8<-- [start:depyf_break]
def clip_if_large(x):
    if x.sum() > 10:  # a graph break on a tensor's value
        x = x.clamp(max=1.0)
    return x * 2


import contextlib
import io

torch._dynamo.reset()
traceback_text = io.StringIO()  # depyf prints the traceback of a failure to stderr, and goes on
try:
    with warnings.catch_warnings(record=True) as caught, contextlib.redirect_stderr(traceback_text):
        warnings.simplefilter("ignore")  # Python 3.12+ deprecations inside copy and astor are not the example's
        warnings.simplefilter("always", UserWarning)  # depyf's own advice, even if given before
        with depyf.prepare_debug("depyf_break"):
            torch.compile(clip_if_large, backend="eager")(torch.rand(6))
except ValueError as error:  # as above, on Python 3.13 (here not wrapped by Dynamo)
    print(f"Python {sys.version_info.major}.{sys.version_info.minor}, depyf failed inside Dynamo:",
          f"{type(error).__name__}: {error}")
else:
    for warning in caught:
        if "problem when decompiling" in str(warning.message):
            print(f"{warning.category.__name__} from depyf:", str(warning.message).splitlines()[0])
    print("traceback's last line:", re.sub(r"offset=\d+, starts_line=\d+", "offset=..., starts_line=...",
                                          traceback_text.getvalue().strip().splitlines()[-1]))
    print("files:", sorted(re.sub(r"_at_\d+", "_at_<line>", tidy(os.path.basename(p)))
                           for p in glob.glob("depyf_break/*.py")))
# --8<-- [end:depyf_break]

# timeout="300": the failing backend runs, and its repro is written and run again; in the
# builds of make test (three editions side by side on two cores) it took 81 to 93 s
# --8<-- [start:minify_dump]
BACKEND = '''
import torch
from torch._dynamo.backends.registry import register_backend

@register_backend
def relu_bug(gm, example_inputs):
    """A backend with a bug: it cannot compile any graph that calls relu."""
    for node in gm.graph.nodes:
        if node.target in (torch.relu, torch.nn.functional.relu):
            raise NotImplementedError(f"relu_bug cannot compile {node.name}")
    return gm.forward
'''
Path("buggy_backend.py").write_text(BACKEND)
MODEL = """
import torch, buggy_backend
torch.manual_seed(0)

def block(x):
    a = torch.sin(x) + 1
    b = torch.relu(a) * torch.cos(x)
    return b.sum() + a.mean()

try:
    torch.compile(block, backend="relu_bug")(torch.randn(8))
except Exception as error:
    print(type(error).__name__ + ":", " ".join(str(error).split()[:7]))
"""
print(run_python("model.py", MODEL, TORCHDYNAMO_REPRO_AFTER="dynamo", TORCHDYNAMO_REPRO_LEVEL="2"), end="")
(launcher,) = glob.glob("torch_compile_debug/run_*/minifier/minifier_launcher.py")
print("written:", re.sub(r"run_[^/]*", "run_<date>-pid_<pid>", launcher))
text = Path(launcher).read_text()
print(text[text.index("class Repro"):text.index("mod = Repro()")].strip())
load_args = text[text.index("def load_args"):text.index("load_args._version")].strip()
print(re.sub(r"'[0-9a-f]{40}'", "'<sha1>'", load_args))  # the input, saved under checkpoints/storages
# --8<-- [end:minify_dump]

# --8<-- [start:minify_run]
out = run_python("minify.py", f"""
import runpy, buggy_backend  # the launcher looks the backend up by name: register it first
runpy.run_path({launcher!r}, run_name="__main__")
""")
print("checkpoints:", [p.name for p in sorted(Path("checkpoints").glob("minified_*.py"),
                                                key=lambda p: -int(p.stem.split("_")[1]))])
repro = Path("repro.py").read_text()
print(repro[repro.index("    def forward"):repro.index("mod = Repro()")].strip())
try:
    run_python("check.py", "import runpy, buggy_backend\nrunpy.run_path('repro.py', run_name='__main__')\n")
except RuntimeError as error:
    print("repro.py fails:", [line for line in str(error).splitlines() if "NotImplementedError" in line][-1])
# --8<-- [end:minify_run]

# timeout="600": two subprocesses each compile with Inductor, cold then warm; 151 s of 300 in
# make test beside two busy loops
# --8<-- [start:fx_cache]
CACHED = """
import sys
import torch
from torch._dynamo.utils import counters
torch.set_num_threads(1)

if sys.argv[1:] == ["load"]:
    with open("artifacts.bin", "rb") as f:
        info = torch.compiler.load_cache_artifacts(f.read())
    print("loaded artifacts:", {kind: len(keys) for kind, keys in info.artifacts.items()})

def affine(x):
    return torch.sin(x) * 2 + 1

torch.compile(affine)(torch.randn(8))
inductor = {k: v for k, v in counters["inductor"].items() if k in ("fxgraph_cache_hit", "fxgraph_cache_miss")}
aot = {k: v for k, v in counters["aot_autograd"].items() if k.startswith("autograd_cache")}
print("dynamo: frames traced", counters["frames"]["ok"], "| inductor:", inductor, "| aot_autograd:", aot)

if sys.argv[1:] == ["save"]:
    data, info = torch.compiler.save_cache_artifacts()
    with open("artifacts.bin", "wb") as f:
        f.write(data)
    print("saved artifacts:", {kind: len(keys) for kind, keys in info.artifacts.items()})
"""
Path("cached.py").write_text(CACHED)


def run_cached(mode, cache_dir):
    """Run cached.py in a fresh Python whose Inductor cache is cache_dir."""
    return subprocess.run([sys.executable, "cached.py", mode], check=True, capture_output=True, text=True,
                          timeout=240, env={**os.environ, "TORCHINDUCTOR_CACHE_DIR": cache_dir}).stdout


first = os.path.abspath("inductor_cache_a")  # a fresh cache: nothing from earlier runs is in it
print("process 1:", run_cached("save", first), end="")
print("process 2:", run_cached("run", first), end="")
# --8<-- [end:fx_cache]

# --8<-- [start:mega_cache]
second = os.path.abspath("inductor_cache_b")  # another machine's empty cache, say
print("process 3:", run_cached("load", second), end="")
# --8<-- [end:mega_cache]
