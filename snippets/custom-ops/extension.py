"""A C++ extension that registers an operator with TORCH_LIBRARY, built at run time."""
import numpy as np
import torch

# Standalone copies of what the page defines in earlier blocks.
# show_table is Operator dispatch's helper (snippets/dispatch/table.py, region show_table);
# the page includes it from there. Run on its own, this file loads the same region.
from pathlib import Path

_table = (Path(__file__).resolve().parents[1] / "dispatch" / "table.py").read_text()
exec(_table.split("# --8<-- [start:show_table]\n")[1].split("# --8<-- [end:show_table]")[0])


@torch.library.custom_op("demo::np_sin", mutates_args=())
def np_sin(x: torch.Tensor) -> torch.Tensor:
    return torch.from_numpy(np.sin(x.numpy(force=True))).to(x.device)


@np_sin.register_fake
def _(x):
    return torch.empty_like(x)


np_sin.register_autograd(
    lambda ctx, grad: grad * ctx.saved_tensors[0].cos(),
    setup_context=lambda ctx, inputs, output: ctx.save_for_backward(inputs[0]),
)

# --8<-- [start:build]
from torch.utils.cpp_extension import load_inline

cpp_source = r"""
#include <ATen/core/Tensor.h>
#include <ATen/ops/empty_like.h>
#include <torch/library.h>

// out = a * b + c, elementwise, float32 on CPU.
at::Tensor mul_add_cpu(const at::Tensor& a, const at::Tensor& b, double c) {
  TORCH_CHECK(a.sizes() == b.sizes(), "mul_add: shapes differ");
  TORCH_CHECK(a.scalar_type() == at::kFloat && b.scalar_type() == at::kFloat,
              "mul_add: float32 only");
  at::Tensor ac = a.contiguous(), bc = b.contiguous();
  at::Tensor out = at::empty_like(ac);
  const float* pa = ac.data_ptr<float>();
  const float* pb = bc.data_ptr<float>();
  float* po = out.data_ptr<float>();
  for (int64_t i = 0; i < out.numel(); ++i) po[i] = pa[i] * pb[i] + static_cast<float>(c);
  return out;
}

TORCH_LIBRARY(extdemo, m) {
  m.def("mul_add(Tensor a, Tensor b, float c) -> Tensor");
}

TORCH_LIBRARY_IMPL(extdemo, CPU, m) {
  m.impl("mul_add", &mul_add_cpu);
}
"""

so_path = load_inline(
    name="custom_ops_extdemo",
    cpp_sources=cpp_source,
    functions=None,             # no pybind11 bindings: the dispatcher is the interface
    is_python_module=False,     # just load the .so so its static registrations run
    no_implicit_headers=True,   # skip the heavy <torch/extension.h>; we include what we use
    verbose=False,
)
print("loaded:", so_path.rsplit("/", 1)[-1])
# --8<-- [end:build]

# --8<-- [start:call]
a, b = torch.arange(4.0), torch.full((4,), 2.0)
print("mul_add:", torch.ops.extdemo.mul_add(a, b, 1.0))
print("schema: ", torch.ops.extdemo.mul_add.default._schema)
show_table("extdemo::mul_add", ["CPU", "Meta", "AutogradCPU"])
for line in torch._C._dispatch_dump("extdemo::mul_add").splitlines():
    if line.startswith("CPU:"):
        print("CPU registration is", line[line.index("["):])
for line in torch._C._dispatch_dump("demo::np_sin").splitlines():
    if line.startswith("CompositeExplicitAutograd"):
        print("np_sin registration is", line[line.rindex("["):])
try:
    torch.ops.extdemo.mul_add(torch.ones(2, dtype=torch.int64), torch.ones(2, dtype=torch.int64), 1.0)
except RuntimeError as e:
    print("RuntimeError:", str(e).splitlines()[0])
# --8<-- [end:call]

# --8<-- [start:no_autograd]
import warnings

# Nothing is registered at the Autograd key yet: AutogradCPU is the fallback.
a_leaf = torch.ones(3, requires_grad=True)
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    out = torch.ops.extdemo.mul_add(a_leaf, torch.full((3,), 2.0), 1.0)
    print("out.requires_grad:", out.requires_grad, "| grad_fn:", out.grad_fn.name())
    out.sum().backward()
for w in caught:
    print(f"{w.category.__name__}: {str(w.message).split('. ')[0]}.")
print("a_leaf.grad:", a_leaf.grad)
# --8<-- [end:no_autograd]

# --8<-- [start:fake]
# Kernels in C++, fake and autograd registrations in Python: the usual split.
@torch.library.register_fake("extdemo::mul_add")
def _(a, b, c):
    torch._check(a.shape == b.shape)
    return torch.empty_like(a)


def _mul_add_setup(ctx, inputs, output):
    a, b, _ = inputs
    ctx.save_for_backward(a, b)


def _mul_add_backward(ctx, grad):
    a, b = ctx.saved_tensors
    return grad * b, grad * a, None  # no gradient for the float c


torch.library.register_autograd("extdemo::mul_add", _mul_add_backward, setup_context=_mul_add_setup)
show_table("extdemo::mul_add", ["Meta", "AutogradCPU"])
args = (torch.randn(3), torch.randn(3, requires_grad=True), 0.5)
print(torch.library.opcheck(torch.ops.extdemo.mul_add.default, args))
# --8<-- [end:fake]

# --8<-- [start:py_frames]
import gc
import sys


def python_frames(fn, *args):
    """How many Python functions run during one call (after one warm-up call)."""
    fn(*args)
    count = 0

    def tracer(frame, event, arg):
        nonlocal count
        count += event == "call"

    gc.disable()  # a collection during the call would run Python finalizers and count them
    sys.setprofile(tracer)
    try:
        fn(*args)
    finally:
        sys.setprofile(None)
        gc.enable()
    return count


x = torch.randn(8)
xg = torch.randn(8, requires_grad=True)
mul_add = torch.ops.extdemo.mul_add.default
print("torch.sin                         ", python_frames(torch.sin, x))
print("torch.ops.aten.sin.default        ", python_frames(torch.ops.aten.sin.default, x))
print("extdemo.mul_add (C++ kernel)      ", python_frames(mul_add, x, x, 1.0))
print("np_sin (custom_op)                ", python_frames(np_sin, x))
print("np_sin, requires_grad input       ", python_frames(np_sin, xg))
with torch.inference_mode():
    print("extdemo.mul_add, inference_mode   ", python_frames(mul_add, x, x, 1.0))
    print("np_sin, inference_mode            ", python_frames(np_sin, x))
# --8<-- [end:py_frames]

# --8<-- [start:op_counts]
import os
from collections import Counter

from torch.profiler import ProfilerActivity, profile

os.environ["KINETO_LOG_LEVEL"] = "6"  # Kineto's start/stop lines off (Setting up, The profiler)


def op_counts(fn):
    with profile(activities=[ProfilerActivity.CPU]) as prof:
        fn()
    return dict(sorted(Counter(e.name for e in prof.events()).items()))


small, large = torch.randn(10), torch.randn(1_000_000)
print("10 elements:       ", op_counts(lambda: torch.ops.extdemo.mul_add(small, small, 1.0)))
print("1e6 elements:      ", op_counts(lambda: torch.ops.extdemo.mul_add(large, large, 1.0)))
m = torch.randn(100, 100)
print("transposed input:  ", op_counts(lambda: torch.ops.extdemo.mul_add(m.t(), m.t(), 1.0)))
loop = op_counts(lambda: [torch.ops.extdemo.mul_add(small[i:i + 1], small[i:i + 1], 1.0)
                          for i in range(10)])
print("loop of 10 calls:  ", loop)
# --8<-- [end:op_counts]
