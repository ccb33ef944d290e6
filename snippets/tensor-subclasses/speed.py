"""The int8 weight compiled with Inductor: which graph makes it fast, measured."""
import warnings
from pathlib import Path

import torch

torch.manual_seed(0)
torch.set_num_threads(1)

# Run on its own, this file first runs what the page defined in earlier blocks
# (the regions `define` of int8.py and `flatten` of compile.py).
_here = Path(__file__).parent
for _file, _region in [("int8.py", "define"), ("compile.py", "flatten")]:
    _text = (_here / _file).read_text()
    _code = _text.split(f"# --8<-- [start:{_region}]\n")[1]
    _code = _code.split(f"# --8<-- [end:{_region}]")[0]
    if _region == "flatten":  # only the definitions, not the demonstration after them
        _code = _code.split("\nwt = ")[0]
    exec(_code)

# On the page an earlier block (compile.py's `stale_cache`) filters two warnings that
# Inductor's imports and code loading raise, neither about subclasses.
warnings.filterwarnings("ignore", message=r"`torch\.jit\.script_method` is deprecated")
warnings.filterwarnings("ignore", message=r"BuiltinImporter\.module_repr\(\)")

# --8<-- [start:kernels]
import copy
import re

from torch._inductor.utils import run_and_get_code


class Int8GemvWeight(Int8WeightTensor):
    """The same weight; compiled, with one row of input, the product is a reduction."""

    def linear(self, x):
        if torch.compiler.is_compiling() and x.numel() == x.shape[-1]:
            return (x.unsqueeze(-2) * self.qdata).sum(-1) * self.scale
        return super().linear(x)


def quantized(layer, cls):
    layer = copy.deepcopy(layer)
    layer.weight = torch.nn.Parameter(cls.from_float(layer.weight.detach()),
                                      requires_grad=False)
    return layer


torch.manual_seed(0)
dense = torch.nn.Linear(4096, 4096)
x1 = torch.randn(1, 4096)  # one row: a decoding step
layers = {"Int8WeightTensor": quantized(dense, Int8WeightTensor),
          "Int8GemvWeight": quantized(dense, Int8GemvWeight)}
compiled = {}
with torch.no_grad():
    for name, layer in layers.items():
        compiled[name] = torch.compile(layer)
        out, (code,) = run_and_get_code(compiled[name], x1)
        kernels = re.findall(r"^(cpp_fused_\w+) = ", code, re.MULTILINE)
        extern = sorted(set(re.findall(r"extern_kernels\.\w+", code)))
        print(f"{name}: Inductor kernels {kernels}, library calls {extern}")
        print("  same result as eager:", torch.allclose(out, layer(x1), atol=1e-4))
# --8<-- [end:kernels]

# --8<-- [start:measure]
import time


def seconds_per_call(fn, calls=5, rounds=5):
    """Best of `rounds` averages of this thread's CPU time over `calls` calls."""
    with torch.no_grad():
        fn(x1)
        best = float("inf")
        for _ in range(rounds):
            start = time.thread_time()
            for _ in range(calls):
                fn(x1)
            best = min(best, (time.thread_time() - start) / calls)
    return best


baseline = seconds_per_call(dense)
runs = [("Int8WeightTensor, eager", layers["Int8WeightTensor"], "< 0.8"),
        ("Int8WeightTensor, compiled", compiled["Int8WeightTensor"], "< 0.8"),
        ("Int8GemvWeight, compiled", compiled["Int8GemvWeight"],
         "> 1.3 with AVX512, < 0.8 with AVX2, > 0.1 otherwise")]
print("speed relative to the float32 layer in eager mode, one row of input:")
for name, fn, claim in runs:
    ratio = baseline / seconds_per_call(fn)
    print(f"{name}: {ratio:.2f}x (measured; claim: {claim})")
# --8<-- [end:measure]
