"""The LibTorch stable ABI: what the wheel offers, and a kernel built against it."""
import re

import torch

# Standalone copy of an earlier block of the page: it builds extdemo (so_path).
_here = __import__("pathlib").Path(__file__).resolve().parent
_extension = (_here / "extension.py").read_text()
_start, _end = "# --8<-- [" + "start:build]\n", "# --8<-- [" + "end:build]"
exec(_extension.split(_start)[1].split(_end)[0])

# --8<-- [start:headers]
import textwrap
from pathlib import Path

from torch.utils.cpp_extension import include_paths

include = Path(include_paths()[0])
for folder in ("torch/headeronly", "torch/csrc/stable"):
    print(f"{folder}/: {len(list((include / folder).rglob('*.h')))} headers")
ops = (include / "torch/csrc/stable/ops.h").read_text()
names = sorted(set(re.findall(r"^inline [\w:&<> ]+?\b(\w+)\(", ops, re.M)))
print(f"operations in torch::stable (ops.h), {len(names)}:")
print(textwrap.fill(", ".join(names), 86, initial_indent="  ", subsequent_indent="  "))
guard = "#if !defined(TORCH_STABLE_ONLY) && !defined(TORCH_TARGET_VERSION)"
headers = list(include.rglob("*.h"))
refusing = sum(1 for h in headers if h.read_text(errors="replace").startswith(guard))
print(f"headers that refuse a stable build: {refusing} of {len(headers)}, ending in")
tensor_h = (include / "ATen/core/Tensor.h").read_text()
print(" ", next(line for line in tensor_h.splitlines() if line.startswith("#error")))
# --8<-- [end:headers]

# --8<-- [start:build]
from torch.utils.cpp_extension import load_inline

stable_source = r"""
#include <torch/csrc/stable/library.h>
#include <torch/csrc/stable/ops.h>
#include <torch/csrc/stable/tensor.h>
#include <torch/headeronly/core/ScalarType.h>
#include <torch/headeronly/util/Exception.h>

using torch::headeronly::ScalarType;
using torch::stable::Tensor;

// out = a * b + c, elementwise, float32 on CPU: extdemo's kernel on the stable ABI.
Tensor mul_add(const Tensor& a, const Tensor& b, double c) {
  STD_TORCH_CHECK(a.scalar_type() == ScalarType::Float &&
                  b.scalar_type() == ScalarType::Float, "mul_add: float32 only");
  STD_TORCH_CHECK(a.numel() == b.numel(), "mul_add: sizes differ");
  Tensor ac = torch::stable::contiguous(a), bc = torch::stable::contiguous(b);
  Tensor out = torch::stable::empty_like(ac);
  const float* pa = ac.const_data_ptr<float>();
  const float* pb = bc.const_data_ptr<float>();
  float* po = out.mutable_data_ptr<float>();
  for (int64_t i = 0; i < out.numel(); ++i) {
    po[i] = pa[i] * pb[i] + static_cast<float>(c);
  }
  return out;
}

STABLE_TORCH_LIBRARY(stabledemo, m) {
  m.def("mul_add(Tensor a, Tensor b, float c) -> Tensor");
}

STABLE_TORCH_LIBRARY_IMPL(stabledemo, CPU, m) {
  m.impl("mul_add", TORCH_BOX(&mul_add));
}
"""

stable_so = load_inline(
    name="custom_ops_stable",
    cpp_sources=stable_source,
    functions=None,
    is_python_module=False,
    no_implicit_headers=True,
    extra_cflags=["-DTORCH_TARGET_VERSION=0x020a000000000000"],  # stable ABI of 2.10
)
a, b = torch.arange(4.0), torch.full((4,), 2.0)
print("stabledemo::mul_add:", torch.ops.stabledemo.mul_add(a, b, 1.0))
try:
    ints = torch.ones(2, dtype=torch.int64)
    torch.ops.stabledemo.mul_add(ints, ints, 1.0)
except RuntimeError as e:
    message = str(e).splitlines()[0]
    print("RuntimeError:", re.sub(r"\S*/(main\.cpp:\d+)", r"\1", message))
# --8<-- [end:build]

# --8<-- [start:symbols]
import subprocess


def needs_from_torch(library):
    """What a shared library leaves for torch's libraries to provide: C++ or C."""
    listing = subprocess.run(["nm", "-u", "-C", library],
                             capture_output=True, text=True, check=True).stdout
    names = [line.split(" U ")[-1].strip() for line in listing.splitlines()]
    cpp = any(name.startswith(("at::", "c10::", "torch::")) for name in names)
    shim = any(re.fullmatch(r"_?(aoti_torch|torch)_\w+", name) for name in names)
    return f"torch's C++ symbols: {cpp!s:5} | stable C functions: {shim}"


for library in (so_path, stable_so):
    print(f"{Path(library).name:25} needs {needs_from_torch(library)}")
# --8<-- [end:symbols]
