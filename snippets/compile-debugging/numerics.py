"""Wrong results from torch.compile: expected numerics, random numbers, a miscompile."""
# --8<-- [start:low_precision]
import contextlib
import io
import unittest.mock

import torch
import torch._dynamo
import torch._inductor.config as inductor_config
from torch._dynamo.utils import same

torch.manual_seed(0)
torch.set_num_threads(1)


def poly(x):
    return (x * x - x) * x  # eager rounds to bfloat16 three times, once per operator


x = torch.randn(1000).to(torch.bfloat16)
eager = poly(x)
fp64 = poly(x.double())  # the reference both results are judged against
torch._dynamo.reset()
compiled = torch.compile(poly)(x)  # Inductor: one fused kernel


def error(result):
    return (result.double() - fp64).abs().mean().item()


differ = (compiled != eager).sum().item()
print(f"bfloat16, {x.numel()} values: compiled equals eager:",
      torch.equal(compiled, eager), f"({differ} values differ)")
print("torch.allclose(compiled, eager):", torch.allclose(compiled, eager))
print(f"mean error against float64: eager {error(eager):.3g},",
      f"compiled {error(compiled):.3g}")
print("the accuracy check against float64 (same):",
      same(eager, compiled, fp64_ref=fp64))
torch._dynamo.reset()
with inductor_config.patch(emulate_precision_casts=True):
    emulated = torch.compile(poly)(x)
print("emulate_precision_casts=True: compiled equals eager:",
      torch.equal(emulated, eager))
# --8<-- [end:low_precision]

# --8<-- [start:random]
def drop(x):
    return torch.nn.functional.dropout(x, p=0.5, training=True)


ones = torch.ones(32)
torch.manual_seed(1)
eager_mask = drop(ones)
torch._dynamo.reset()
torch.manual_seed(1)
compiled_mask = torch.compile(drop)(ones)
print("same seed, compiled dropout equals eager:",
      torch.equal(compiled_mask, eager_mask))
torch._dynamo.reset()
with inductor_config.patch(fallback_random=True):
    torch.manual_seed(1)
    fallback_mask = torch.compile(drop)(ones)
print("fallback_random=True: compiled dropout equals eager:",
      torch.equal(fallback_mask, eager_mask))
# --8<-- [end:random]

# --8<-- [start:ladder]
from torch._inductor.decomposition import select_decomp_table

aten = torch.ops.aten


def act(x):
    return torch.nn.functional.silu(x) * 2 + torch.relu(x)


def bad_silu(x):
    return x * torch.sigmoid(-x)  # a sign error


def relu_codegen_bug():
    """A test hook in Inductor's C++ backend: it miscompiles relu (adds 1)."""
    return inductor_config.patch({"cpp.inject_relu_bug_TESTING_ONLY": "accuracy"})


def silu_decomposition_bug():
    """A wrong entry in the decomposition table that Inductor traces with."""
    table = select_decomp_table()
    return unittest.mock.patch.dict(table, {aten.silu.default: bad_silu})


BUGS = {"relu codegen": relu_codegen_bug, "silu decomposition": silu_decomposition_bug}
BACKENDS = ("eager", "aot_eager", "aot_eager_decomp_partition", "inductor")
x = torch.randn(16)
expected = act(x)
print(f"{'injected bug':19}", *(f"{name:>9}" for name in BACKENDS))
for bug, injected in BUGS.items():  # two Inductor compiles: the block allows 300 s
    verdicts = []
    with injected():
        for backend in BACKENDS:
            torch._dynamo.reset()
            right = torch.allclose(torch.compile(act, backend=backend)(x), expected)
            verdicts.append("ok" if right else "WRONG")
    cells = (f"{v:>{max(9, len(b))}}" for v, b in zip(verdicts, BACKENDS, strict=True))
    print(f"{bug:19}", *cells)
# --8<-- [end:ladder]

# --8<-- [start:bisector]
from torch._inductor.compiler_bisector import CompilerBisector


def compiled_is_right():
    """What the bisector calls again and again: is the compiled result right?"""
    torch._dynamo.reset()
    compiled = torch.compile(act)  # the bisector swaps in the backend it is testing
    return torch.allclose(compiled(x), expected)


with relu_codegen_bug():  # about fifteen Inductor compiles: the block allows 300 s
    print("result:", CompilerBisector.do_bisect(compiled_is_right))
# --8<-- [end:bisector]

# --8<-- [start:bisector_decomposition]
log = io.StringIO()
with silu_decomposition_bug(), contextlib.redirect_stdout(log):
    result = CompilerBisector.do_bisect(compiled_is_right)
for line in log.getvalue().splitlines():  # the lines that name the culprit
    if any(k in line for k in ("issue is in", "fixed the issue", "search completed")):
        print(line)
print("result:", result)
# --8<-- [end:bisector_decomposition]
