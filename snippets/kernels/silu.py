"""SiLU as a C++ kernel in five steps, in one extension built once; the C++ frontend after it.

Run on its own: `python snippets/kernels/silu.py` (compiles the extension and a libtorch program).
"""
import torch

torch.set_num_threads(1)  # as on the page: every page runs with one intra-op thread

# --8<-- [start:source]
import re

import torch

SOURCE = r"""
#include <ATen/core/Tensor.h>
#include <ATen/Dispatch.h>
#include <ATen/OpMathType.h>
#include <ATen/Parallel.h>
#include <ATen/TensorIterator.h>
#include <ATen/cpu/vec/functional.h>
#include <ATen/cpu/vec/vec.h>
#include <ATen/native/cpu/Loops.h>
#include <ATen/ops/empty.h>
#include <ATen/ops/empty_like.h>
#include <torch/library.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <mutex>
#include <vector>

using at::vec::Vectorized;

// --8<-- [start:naive_cpp]
// Step 1: a loop over the raw buffer. float32 only, contiguous only.
at::Tensor silu_naive(const at::Tensor& x) {
  TORCH_CHECK_TYPE(x.scalar_type() == at::kFloat,
                   "silu_naive: expected a float32 tensor, got ", x.scalar_type());
  at::Tensor in = x.contiguous();        // copies unless x is already contiguous
  at::Tensor out = at::empty_like(in);   // contiguous too
  const float* src = in.const_data_ptr<float>();
  float* dst = out.mutable_data_ptr<float>();
  for (int64_t i = 0, n = in.numel(); i < n; ++i) {
    dst[i] = src[i] / (1.0f + std::exp(-src[i]));
  }
  return out;
}
// --8<-- [end:naive_cpp]

// --8<-- [start:iter_cpp]
// Step 2: TensorIterator walks the strides and allocates the output.
at::Tensor silu_iter(const at::Tensor& x) {
  at::Tensor out;  // undefined: the iterator allocates it
  at::TensorIterator iter = at::TensorIteratorConfig()
      .add_output(out)
      .add_const_input(x)
      .build();
  at::native::cpu_kernel(iter, [](float v) -> float {
    return v / (1.0f + std::exp(-v));
  });
  return iter.output();
}
// --8<-- [end:iter_cpp]

// --8<-- [start:vec_cpp]
// Step 3: the same loop with a vectorised body for contiguous runs.
at::Tensor silu_vec(const at::Tensor& x) {
  at::Tensor out;
  at::TensorIterator iter = at::TensorIteratorConfig()
      .add_output(out)
      .add_const_input(x)
      .build();
  using Vec = Vectorized<float>;
  at::native::cpu_kernel_vec(
      iter,
      [](float v) -> float { return v / (1.0f + std::exp(-v)); },
      [](Vec v) -> Vec { return v / (Vec(1.0f) + v.neg().exp()); });
  return iter.output();
}

std::vector<int64_t> vec_lanes() {
  return {Vectorized<double>::size(), Vectorized<float>::size(),
          Vectorized<c10::BFloat16>::size()};
}
// --8<-- [end:vec_cpp]

// --8<-- [start:dispatch_cpp]
// Step 4: one kernel body, instantiated for each floating dtype.
// The iterator alone decides the output's shape, dtype and strides.
static at::TensorIterator silu_iterator(at::Tensor& out, const at::Tensor& x) {
  return at::TensorIteratorConfig().add_output(out).add_const_input(x).build();
}

at::Tensor silu_cpu(const at::Tensor& x) {
  at::Tensor out;
  at::TensorIterator iter = silu_iterator(out, x);
  AT_DISPATCH_FLOATING_TYPES_AND2(at::kHalf, at::kBFloat16, iter.dtype(), "kernels::silu", [&] {
    using opmath_t = at::opmath_type<scalar_t>;  // float for Half and BFloat16
    if constexpr (std::is_same_v<scalar_t, opmath_t>) {
      using Vec = Vectorized<scalar_t>;
      at::native::cpu_kernel_vec(
          iter,
          [](scalar_t v) -> scalar_t { return v / (scalar_t(1) + std::exp(-v)); },
          [](Vec v) -> Vec { return v / (Vec(scalar_t(1)) + v.neg().exp()); });
    } else {
      at::native::cpu_kernel(iter, [](scalar_t v) -> scalar_t {
        opmath_t f = static_cast<opmath_t>(v);  // compute in float, round once
        return static_cast<scalar_t>(f / (opmath_t(1) + std::exp(-f)));
      });
    }
  });
  return iter.output();
}
// --8<-- [end:dispatch_cpp]

// --8<-- [start:meta_cpp]
// The Meta kernel: build the same iterator, run no loop.
at::Tensor silu_meta(const at::Tensor& x) {
  at::Tensor out;
  return silu_iterator(out, x).output();
}
// --8<-- [end:meta_cpp]

// --8<-- [start:parallel_cpp]
// Step 5: split [0, n) into chunks, one per thread; record each chunk.
std::tuple<at::Tensor, at::Tensor> silu_parallel(const at::Tensor& x, int64_t grain_size) {
  TORCH_CHECK(x.scalar_type() == at::kFloat && x.is_contiguous(),
              "silu_parallel: expected a contiguous float32 tensor");
  at::Tensor out = at::empty_like(x);
  const float* src = x.const_data_ptr<float>();
  float* dst = out.mutable_data_ptr<float>();
  std::mutex mutex;
  std::vector<std::array<int64_t, 3>> chunks;
  at::parallel_for(0, x.numel(), grain_size, [&](int64_t begin, int64_t end) {
    using Vec = Vectorized<float>;
    at::vec::map([](Vec v) { return v / (Vec(1.0f) + v.neg().exp()); },
                 dst + begin, src + begin, end - begin);
    std::lock_guard<std::mutex> lock(mutex);
    chunks.push_back({begin, end, at::get_thread_num()});
  });
  at::Tensor table = at::empty({static_cast<int64_t>(chunks.size()), 3}, x.options().dtype(at::kLong));
  auto rows = table.accessor<int64_t, 2>();
  std::sort(chunks.begin(), chunks.end());
  for (size_t i = 0; i < chunks.size(); ++i) {
    for (int j = 0; j < 3; ++j) rows[i][j] = chunks[i][j];
  }
  return {out, table};
}

int64_t num_threads() {
  return at::get_num_threads();
}
// --8<-- [end:parallel_cpp]

// --8<-- [start:accessor_cpp]
// Row-wise RMS normalisation through a strided 2-D view.
at::Tensor rms_norm_rows(const at::Tensor& x, double eps) {
  TORCH_CHECK_VALUE(eps > 0, "rms_norm_rows: eps must be positive, got ", eps);
  auto in = x.accessor<float, 2>();  // checks dtype and dim, keeps the strides
  at::Tensor out = at::empty(x.sizes(), x.options());
  auto o = out.accessor<float, 2>();
  const int64_t cols = in.size(1);
  at::parallel_for(0, in.size(0), /*grain_size=*/16, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) {
      float sum = 0.0f;
      for (int64_t j = 0; j < cols; ++j) sum += in[i][j] * in[i][j];
      const float scale = 1.0f / std::sqrt(sum / cols + static_cast<float>(eps));
      for (int64_t j = 0; j < cols; ++j) o[i][j] = in[i][j] * scale;
    }
  });
  return out;
}
// --8<-- [end:accessor_cpp]

// --8<-- [start:library_cpp]
TORCH_LIBRARY(kernels, m) {
  m.def("silu_naive(Tensor x) -> Tensor");
  m.def("silu_iter(Tensor x) -> Tensor");
  m.def("silu_vec(Tensor x) -> Tensor");
  m.def("silu(Tensor x) -> Tensor");
  m.def("silu_parallel(Tensor x, int grain_size) -> (Tensor, Tensor)");
  m.def("rms_norm_rows(Tensor x, float eps) -> Tensor");
  m.def("num_threads() -> int", &num_threads);  // no tensor argument: one kernel for all
  m.def("vec_lanes() -> int[]", &vec_lanes);
}

TORCH_LIBRARY_IMPL(kernels, CPU, m) {
  m.impl("silu_naive", &silu_naive);
  m.impl("silu_iter", &silu_iter);
  m.impl("silu_vec", &silu_vec);
  m.impl("silu", &silu_cpu);
  m.impl("silu_parallel", &silu_parallel);
  m.impl("rms_norm_rows", &rms_norm_rows);
}

TORCH_LIBRARY_IMPL(kernels, Meta, m) {
  m.impl("silu", &silu_meta);
}
// --8<-- [end:library_cpp]
"""

# The functions and registration blocks defined above, one line each:
for line in SOURCE.splitlines():
    if line.endswith("{") and re.match(r"[A-Za-z]", line):
        print(line.removesuffix(" {"))
# --8<-- [end:source]

# --8<-- [start:build]
import platform
import sys
from pathlib import Path

from torch.utils.cpp_extension import load_inline

# Vector code by architecture. On x86-64 with AVX2, what ATen defines for its AVX2 copy of a
# kernel file: Vectorized<float> is then 8 lanes of __m256 with Sleef's exp. On aarch64, NEON
# is part of the base instruction set and ATen's Vectorized uses it with no -m flag; the define
# gives its exp() Sleef, as in torch's own arm64 builds. Anywhere else, or with
# ATEN_CPU_CAPABILITY=default, Vectorized<float> is a plain array of 8 floats.
VECTOR_FLAGS = {
    "AVX2": ["-mavx2", "-mfma", "-mf16c", "-DCPU_CAPABILITY=AVX2", "-DCPU_CAPABILITY_AVX2"],
    "NEON": ["-DAT_BUILD_ARM_VEC256_WITH_SLEEF"],
    "DEFAULT": [],
}
if platform.machine() in ("aarch64", "arm64"):
    vector = "NEON"
elif torch.backends.cpu.get_cpu_capability() in ("AVX2", "AVX512"):
    vector = "AVX2"
else:
    vector = "DEFAULT"
# OpenMP: GCC's flag; Apple's clang takes it through the preprocessor, with torch's own libomp.
if sys.platform == "darwin":
    openmp = ["-Xpreprocessor", "-fopenmp"]
    openmp_link = [f"-L{Path(torch.__file__).parent / 'lib'}", "-lomp"]
else:
    openmp, openmp_link = ["-fopenmp"], ["-fopenmp"]
flags = ["-O3", *openmp, *VECTOR_FLAGS[vector]]  # load_inline passes no optimisation flag of its own
so_path = load_inline(
    name="kernels_chapter",
    cpp_sources=SOURCE,
    extra_cflags=flags,
    extra_ldflags=openmp_link,
    is_python_module=False,    # a plain shared library: loading it runs the registrations
    no_implicit_headers=True,  # only the headers SOURCE includes
)
print("loaded", Path(so_path).name)
ninja = (Path(so_path).parent / "build.ninja").read_text()
cflags = next(line for line in ninja.splitlines() if line.startswith("cflags = ")).split()[2:]
print("vector code for this CPU:", vector, "(measured; claim: one of AVX2, NEON, DEFAULT)")
print("cflags:", *[flag for flag in cflags
                   if not flag.startswith(("-I", "-isystem", "/")) and flag not in VECTOR_FLAGS[vector]])
for name in ("silu_naive", "silu_iter", "silu_vec", "silu", "silu_parallel", "rms_norm_rows"):
    print(getattr(torch.ops.kernels, name).default._schema)
# --8<-- [end:build]

# --8<-- [start:measure]
import statistics
import time

import torch.nn.functional as F


def cpu_seconds(fn, x, calls):
    """CPU seconds of this thread per call (with one intra-op thread, the kernel runs here)."""
    start = time.thread_time()
    for _ in range(calls):
        fn(x)
    return (time.thread_time() - start) / calls


def speedup(new, old, x, repeats=11, calls=5):
    """How many times faster `new` is than `old` on x: the outputs are compared first (which
    warms both up), then interleaved repeats; the ratio of the two medians."""
    torch.testing.assert_close(new(x), old(x))
    old_times, new_times = [], []
    for _ in range(repeats):
        old_times.append(cpu_seconds(old, x, calls))
        new_times.append(cpu_seconds(new, x, calls))
    return statistics.median(old_times) / statistics.median(new_times)


def verdict(label, ratio, claim):
    """Print the ratio as a measurement, with the claim it must hold on every machine."""
    print(f"{label}: {ratio:.2f}x (measured; claim: {claim})")


# The claims, wide enough to hold on every supported CPU (README, "Measured values"):
SAME = "between 0.67 and 1.5"  # two ways of doing the same work
NEAR = "between 0.5 and 3"  # ours against torch's, which may use wider vectors (AVX-512)
VECTOR = "> 1.5 with AVX2 or AVX512, > 0.67 otherwise"  # vector code against scalar code


k = torch.ops.kernels
x = torch.randn(1_000_000)
print("intra-op threads:", torch.get_num_threads())
verdict("F.silu vs F.silu", speedup(F.silu, F.silu, x), SAME)
# --8<-- [end:measure]

# --8<-- [start:naive]
xt = torch.randn(1000, 1000).t()  # a transposed view: not contiguous
print("input strides", xt.stride(), "-> silu_naive output strides", k.silu_naive(xt).stride())
verdict("F.silu vs silu_naive", speedup(F.silu, k.silu_naive, x), VECTOR)
# --8<-- [end:naive]

# --8<-- [start:iter]
def operators(fn, x):
    """The operators one call runs, as the profiler records them."""
    with torch.profiler.profile() as prof:
        fn(x)
    return ", ".join(event.name for event in prof.events())


print("silu_naive(xt):", operators(k.silu_naive, xt))
print("silu_iter(xt): ", operators(k.silu_iter, xt))
print("silu_iter output strides", k.silu_iter(xt).stride())
verdict("silu_iter vs silu_naive", speedup(k.silu_iter, k.silu_naive, x), SAME)
verdict("F.silu vs silu_iter", speedup(F.silu, k.silu_iter, x), VECTOR)
try:
    k.silu_iter(x.double())
except RuntimeError as e:
    print("float64 input:", e)
# --8<-- [end:iter]

# --8<-- [start:vec]
print("lanes of Vectorized<double>, <float>, <BFloat16>:", k.vec_lanes())
verdict("silu_vec vs silu_iter", speedup(k.silu_vec, k.silu_iter, x), VECTOR)
verdict("silu_vec vs silu_iter, every other element", speedup(k.silu_vec, k.silu_iter, x[::2]), SAME)
verdict("F.silu vs silu_vec", speedup(F.silu, k.silu_vec, x), NEAR)
# --8<-- [end:vec]

# --8<-- [start:dispatch]
for dtype in (torch.float64, torch.float32, torch.bfloat16, torch.float16):
    sample = torch.randn(1000).to(dtype)
    torch.testing.assert_close(k.silu(sample), F.silu(sample))
    print(f"{dtype}: matches F.silu")
try:
    k.silu(torch.arange(3))
except NotImplementedError as e:
    print("NotImplementedError:", e)
verdict("silu vs silu_vec, float32", speedup(k.silu, k.silu_vec, x), SAME)
verdict("F.silu vs silu, float32", speedup(F.silu, k.silu, x), NEAR)
verdict("F.silu vs silu, bfloat16", speedup(F.silu, k.silu, x.bfloat16()), VECTOR)
# --8<-- [end:dispatch]

# --8<-- [start:parallel]
print("at::get_num_threads() in the extension:", k.num_threads())
for threads, grain in [(1, 32_768), (2, 32_768), (2, 2_000_000), (4, 400_000)]:
    torch.set_num_threads(threads)
    out, chunks = k.silu_parallel(x, grain)
    torch.testing.assert_close(out, F.silu(x))
    print(f"{threads} thread(s), grain {grain:>9,}: (begin, end, thread)",
          [tuple(chunk) for chunk in chunks.tolist()])
torch.set_num_threads(1)


def silu_parallel(t):
    return k.silu_parallel(t, 32_768)[0]  # the output, without the chunks


verdict("silu_parallel vs silu, 1 thread", speedup(silu_parallel, k.silu, x), SAME)
verdict("F.silu vs silu_parallel, 1 thread", speedup(F.silu, silu_parallel, x), NEAR)
# --8<-- [end:parallel]

# --8<-- [start:accessor]
square = torch.randn(1000, 1000)
torch.testing.assert_close(k.rms_norm_rows(square, 1e-6), F.rms_norm(square, (1000,), eps=1e-6))
flipped = square.t()  # a strided view: rows of `flipped` are columns of `square`
torch.testing.assert_close(k.rms_norm_rows(flipped, 1e-6), F.rms_norm(flipped, (1000,), eps=1e-6))
print("matches F.rms_norm, on a contiguous and on a transposed input")
packed = flipped.contiguous()  # the same values, rows contiguous
verdict("rows read through strides vs contiguous rows",
        speedup(lambda _: k.rms_norm_rows(flipped, 1e-6), lambda _: k.rms_norm_rows(packed, 1e-6), None),
        "< 0.8")
verdict("F.rms_norm vs rms_norm_rows, contiguous rows",
        speedup(lambda t: F.rms_norm(t, (1000,), eps=1e-6), lambda t: k.rms_norm_rows(t, 1e-6), packed),
        "between 0.5 and 4")  # memory-bound: a busy neighbour narrows the gap
# --8<-- [end:accessor]

# --8<-- [start:errors]
attempts = {
    "silu_naive(int64)": lambda: k.silu_naive(torch.arange(3)),
    "rms_norm_rows(eps=0)": lambda: k.rms_norm_rows(square, 0.0),
    "rms_norm_rows(3-D)": lambda: k.rms_norm_rows(torch.ones(2, 3, 4), 1e-6),
    "rms_norm_rows(float64)": lambda: k.rms_norm_rows(square.double(), 1e-6),
    "silu_parallel(strided)": lambda: k.silu_parallel(x[::2], 32_768),
    "silu(int64)": lambda: k.silu(torch.arange(3)),
}
for label, attempt in attempts.items():
    try:
        attempt()
    except Exception as e:  # each TORCH_CHECK flavour arrives as its own Python class
        print(f"{label:24} {type(e).__name__}: {e}")
# --8<-- [end:errors]

# --8<-- [start:meta]
from torch._subclasses.fake_tensor import FakeTensorMode

has_kernel = torch._C._dispatch_has_kernel_for_dispatch_key
print("Meta kernel: silu", has_kernel("kernels::silu", "Meta"),
      "| silu_naive", has_kernel("kernels::silu_naive", "Meta"))
on_meta = k.silu(torch.empty(1000, 1000, device="meta").t())
print("on meta:", on_meta.device, tuple(on_meta.shape), "strides", on_meta.stride())
with FakeTensorMode():
    huge = torch.empty(100_000, 100_000)  # 40 GB if it were real
    print("fake:", type(k.silu(huge)).__name__, tuple(k.silu(huge).shape))
    try:
        k.silu_naive(huge)
    except Exception as e:
        print(f"fake, silu_naive: {type(e).__name__}: {e}")
ints = torch.arange(3, device="meta")
print("int64 on meta: kernels.silu ->", k.silu(ints).dtype, "| F.silu ->", F.silu(ints).dtype)
# --8<-- [end:meta]

# --8<-- [start:opcheck_fail]
import logging

# FakeTensorMode also logs this failure, with a traceback; the exception says enough.
logging.getLogger("torch._subclasses.fake_tensor").setLevel(logging.CRITICAL)
try:
    torch.library.opcheck(k.silu.default, (torch.randn(4, 5),))
except Exception as e:
    print(f"{type(e).__name__}: {e}")
# --8<-- [end:opcheck_fail]

# --8<-- [start:opcheck_fix]
@torch.library.register_fake("kernels::silu")
def _(x):
    return torch.empty_like(x)  # symbolic sizes are fine here; keeps x's layout, like the iterator


samples = [(torch.randn(4, 5),), (torch.randn(5, 4).t(),), (torch.randn(7, dtype=torch.bfloat16),)]
for args in samples:
    print(torch.library.opcheck(k.silu.default, args))
print(next(row for row in torch._C._dispatch_dump_table("kernels::silu").splitlines() if row.startswith("Meta:")))
print("aten.silu has a Python meta function:", torch.ops.aten.silu.default in torch._decomp.meta_table)
# --8<-- [end:opcheck_fix]

# --8<-- [start:naive_fake]
@torch.library.register_fake("kernels::silu_naive")
def _(x):
    return torch.empty_like(x)  # wrong for a transposed x: the kernel returns a contiguous tensor


transposed = (torch.randn(5, 4).t(),)
try:
    torch.library.opcheck(k.silu_naive.default, transposed)
except Exception as e:
    print(f"{type(e).__name__}: {e}")


@torch.library.register_fake("kernels::silu_naive")
def _(x):
    return x.new_empty(x.shape)  # contiguous, like the x.contiguous() inside the kernel


print(torch.library.opcheck(k.silu_naive.default, transposed))
# --8<-- [end:naive_fake]

# --8<-- [start:program]
import hashlib
import subprocess

from torch.utils import cpp_extension

PROGRAM = r"""
// --8<-- [start:program_cpp]
// Only the headers the program uses, as in the extension. <torch/torch.h> would bring
// torch::nn, torch::optim, torch::data and the rest of the C++ frontend into the compile.
#include <ATen/core/Formatting.h>
#include <ATen/core/Tensor.h>
#include <ATen/core/dispatch/Dispatcher.h>
#include <ATen/ops/arange.h>
#include <ATen/ops/tensor.h>
#include <dlfcn.h>
#include <iostream>

int main(int argc, char** argv) {
  std::cout << std::boolalpha;
  // Tensors: the same sizes, strides and views as in Python.
  at::Tensor t = at::arange(6, at::kFloat).view({2, 3}).t();
  std::cout << "sizes " << t.sizes() << ", strides " << t.strides()
            << ", contiguous " << t.is_contiguous() << "\n";

  // Autograd: the operators record a graph, and backward() fills grad().
  at::Tensor x = at::tensor({1.0f, 2.0f, 3.0f}).requires_grad_();
  at::Tensor y = x.mul(x).sum();
  std::cout << "x is a leaf " << x.is_leaf() << ", y is a leaf " << y.is_leaf()
            << ", y has a grad_fn " << (y.grad_fn() != nullptr) << "\n";
  y.backward();
  std::cout << "x.grad\n" << x.grad() << "\n";

  // The operator this chapter registered, looked up by name in the dispatcher.
  if (argc < 2 || dlopen(argv[1], RTLD_NOW | RTLD_GLOBAL) == nullptr) return 1;
  auto silu = c10::Dispatcher::singleton()
                  .findSchemaOrThrow("kernels::silu", "")
                  .typed<at::Tensor(const at::Tensor&)>();
  std::cout << "kernels::silu\n" << silu.call(at::tensor({-1.0f, 0.0f, 1.0f})) << "\n";
  try {
    silu.call(at::arange(2));  // int64, like torch.arange(2)
  } catch (const c10::Error& e) {
    std::cout << "c10::Error: " << e.what_without_backtrace() << "\n";
  }
}
// --8<-- [end:program_cpp]
"""

torch_dir = str(Path(torch.__file__).parent)
command = [
    "g++", "-std=c++20", "frontend.cpp", "-o", "frontend",
    f"-D_GLIBCXX_USE_CXX11_ABI={int(torch._C._GLIBCXX_USE_CXX11_ABI)}",
    *[f"-I{path}" for path in cpp_extension.include_paths()],
    *[f"-L{path}" for path in cpp_extension.library_paths()],
    *[f"-Wl,-rpath,{path}" for path in cpp_extension.library_paths()],
    "-ltorch", "-ltorch_cpu", "-lc10",
]
print(" ".join(command).replace(torch_dir, "$TORCH"))


def wheel_headers(source: str) -> int:
    """How many of the wheel's headers a source includes: g++ -M lists them without compiling.
    Headers with the same content count once: `#pragma once` takes two such files for one when
    their modification times match as well, so whether both are listed depends on the install."""
    listing = subprocess.run(
        [*command[:2], "-M", "-x", "c++", "-", *[flag for flag in command if flag.startswith(("-I", "-D"))]],
        input=source, capture_output=True, text=True, check=True,
    ).stdout
    return len({Path(path).read_bytes() for path in listing.split() if path.startswith(torch_dir)})


print("headers from the wheel: this program", wheel_headers(PROGRAM),
      "| #include <torch/torch.h>", wheel_headers("#include <torch/torch.h>\n"))

# Compiled once per program and torch, beside the extension in the extensions cache.
key = hashlib.sha1(" ".join([PROGRAM, *command]).encode()).hexdigest()[:12]
build = Path(so_path).parent / f"frontend-{key}"
if not (build / "frontend").exists():
    build.mkdir(exist_ok=True)
    (build / "frontend.cpp").write_text(PROGRAM)
    subprocess.run(command, cwd=build, check=True)
# --8<-- [end:program]

# --8<-- [start:run]
result = subprocess.run([str(build / "frontend"), so_path], capture_output=True, text=True)
print(result.stdout, end="")
print("exit status", result.returncode)
# --8<-- [end:run]
