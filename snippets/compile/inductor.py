"""Inductor on the CPU: the generated C++ kernel, its wrapper, and where it is cached."""
import torch
import torch._dynamo

torch.manual_seed(0)
torch.set_num_threads(1)

# --8<-- [start:inductor_code]
import re

from torch._inductor.cpu_vec_isa import pick_vec_isa
from torch._inductor.utils import run_and_get_code


def fused(x, y):
    return torch.relu(x * y + 1.0).sum(dim=-1)


torch._dynamo.reset()
a, b = torch.randn(8, 64), torch.randn(8, 64)
out, (source,) = run_and_get_code(torch.compile(fused), a, b)  # default backend: Inductor
print("matches eager:", torch.allclose(out, fused(a, b)))
print("kernels:", re.findall(r"^(cpp_fused\w+) = async_compile\.cpp_pybinding", source, re.M))
signature = source[source.index('extern "C"'):source.index(")", source.index('extern "C"')) + 1]
print(" ".join(signature.split()))
# Which vector ISA Inductor finds depends on the CPU (and on ATEN_CPU_CAPABILITY); that it is
# used exactly where one is found does not.
vectorised = "at::vec::Vectorized<float>" in source
print("vector code exactly where Inductor found a vector ISA:", vectorised == bool(pick_vec_isa()))
call = source[source.index("    def call(self, args):"):source.index("        return (buf0, )")]
print(call.rstrip())
# --8<-- [end:inductor_code]

# --8<-- [start:cache_dir]
import os

from torch._inductor.codecache import PyCodeCache
from torch._inductor.runtime.cache_dir_utils import cache_dir

root = cache_dir()
print("generated modules under it:", all(m.__file__.startswith(root) for m in PyCodeCache.modules))
print("compiled kernel libraries there:", any(name.endswith(".so") for _, _, files in os.walk(root) for name in files))
# --8<-- [end:cache_dir]

# timeout="600": two subprocesses each compile with Inductor, cold then from the cache; 151 s
# of 300 in make test beside two busy loops
# --8<-- [start:fx_graph_cache]
import subprocess
import sys
import tempfile
import textwrap

program = textwrap.dedent("""
    import torch
    from torch._dynamo.utils import counters

    torch.set_num_threads(1)

    def fused(x, y):
        return torch.relu(x * y + 1.0).sum(dim=-1)

    torch.compile(fused)(torch.randn(8, 64), torch.randn(8, 64))
    fx = counters["inductor"]
    print("fxgraph_cache_miss:", fx["fxgraph_cache_miss"], "fxgraph_cache_hit:", fx["fxgraph_cache_hit"],
          "autograd_cache_hit:", counters["aot_autograd"]["autograd_cache_hit"])
""")
environment = dict(os.environ, TORCHINDUCTOR_CACHE_DIR=tempfile.mkdtemp())  # an empty cache
for run in ("first process: ", "second process:"):
    result = subprocess.run([sys.executable, "-c", program], env=environment,
                            capture_output=True, text=True, check=True)
    print(run, result.stdout.strip())
# --8<-- [end:fx_graph_cache]

# --8<-- [start:modes]
import torch._inductor

for mode, options in sorted(torch._inductor.list_mode_options().items()):
    print(f"{mode:27} {options}")
# --8<-- [end:modes]

# --8<-- [start:reduce_overhead_cpu]
import difflib

from torch._dynamo.utils import counters

torch._dynamo.reset()
skips_before = counters["inductor"]["cudagraph_skips"]
overhead = torch.compile(fused, mode="reduce-overhead")
out, (overhead_source,) = run_and_get_code(overhead, a, b)
print("matches eager:", torch.allclose(out, fused(a, b)))
print("CUDA graph skipped for this CPU graph:",
      counters["inductor"]["cudagraph_skips"] - skips_before == 1)


def kernel_of(wrapper):
    return wrapper[wrapper.index('extern "C"'):wrapper.index("''')")]


same_kernel = kernel_of(overhead_source) == kernel_of(source)
print("same kernel as the default mode:", same_kernel)
print("the wrappers differ in (- default only, + reduce-overhead only):")
for line in difflib.unified_diff(source.splitlines(), overhead_source.splitlines(), n=0,
                                 lineterm=""):
    if line[:1] in "-+" and line[:3] not in ("---", "+++") and "# AOT ID" not in line:
        print("  ", line[0], line[1:].strip())
# --8<-- [end:reduce_overhead_cpu]
