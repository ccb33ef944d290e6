"""Registering a new operator and its kernels with torch.library.Library."""
import re

import torch

# Standalone copy of the page's show_table helper (defined in table.py on the page).
_ROW = re.compile(r"^(?P<key>\w+): (?P<ft>fallthrough )?registered at (?P<loc>.*) \[(?P<kind>.*)\]$")


def _where(loc):
    if "/__w/pytorch/pytorch/" in loc:
        return loc.split("/__w/pytorch/pytorch/", 1)[1]
    if "site-packages/torch/" in loc:
        return "torch/" + loc.split("site-packages/torch/", 1)[1]
    if loc.rsplit(":", 1)[0].endswith(".cpp"):
        return "<extension>/" + loc.rsplit("/", 1)[-1]
    return "<user code>"


def show_table(op, keys):
    rows = {}
    for line in torch._C._dispatch_dump_table(op).splitlines():
        m = _ROW.match(line)
        if m:
            rows[m["key"]] = m
    for key in keys:
        m = rows.get(key)
        if m is None:
            print(f"{key:<21} (no kernel: calling with this key raises)")
            continue
        kind = ("fallthrough " if m["ft"] else "") + m["kind"]
        print(f"{key:<21} {kind:<29} {_where(m['loc'])}")


# --8<-- [start:define]
# A "DEF" library owns a namespace: it may define schemas (and add kernels).
mylib = torch.library.Library("mylib", "DEF")
mylib.define("scale_add(Tensor x, Tensor y, float alpha) -> Tensor")


def scale_add_cpu(x, y, alpha):
    return x * alpha + y


mylib.impl("scale_add", scale_add_cpu, "CPU")

x, y = torch.arange(3.0), torch.ones(3)
print("torch.ops.mylib.scale_add:", torch.ops.mylib.scale_add(x, y, 2.0))
print("schema:", torch.ops.mylib.scale_add.default._schema)
# --8<-- [end:define]

# --8<-- [start:mylib_table]
show_table("mylib::scale_add", ["CPU", "Meta", "AutogradCPU", "ADInplaceOrView", "Python"])
try:
    torch.ops.mylib.scale_add(torch.ones(3, device="meta"), torch.ones(3, device="meta"), 2.0)
except NotImplementedError as e:
    print("NotImplementedError:", str(e).split(". ")[0])
# --8<-- [end:mylib_table]

# --8<-- [start:meta_impl]
# A Meta kernel computes only metadata (shape, dtype); it never touches data.
def scale_add_meta(x, y, alpha):
    return torch.empty_like(x)


mylib.impl("scale_add", scale_add_meta, "Meta")
show_table("mylib::scale_add", ["Meta"])
out = torch.ops.mylib.scale_add(torch.ones(2, 5, device="meta"), torch.ones(2, 5, device="meta"), 2.0)
print("meta call:", out.device, tuple(out.shape))
# --8<-- [end:meta_impl]

# --8<-- [start:autograd_fallback]
import textwrap
import warnings

# No autograd kernel was registered, so AutogradCPU hits the fallback above.
xg = torch.ones(3, requires_grad=True)
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    out = torch.ops.mylib.scale_add(xg, torch.ones(3), 2.0)
    out.sum().backward()
for w in caught:  # the whole message, wrapped to 88 columns
    print(f"{w.category.__name__}:")
    print(textwrap.fill(str(w.message), width=88, break_long_words=False, break_on_hyphens=False))
print("out.grad_fn:", type(out.grad_fn).__name__)
print("x.grad:", xg.grad)
# --8<-- [end:autograd_fallback]

# --8<-- [start:toy_device]
# 1. A name. PrivateUse1 is the backend key PyTorch reserves for out-of-tree devices.
try:
    torch.device("toy")
except RuntimeError as e:
    message = str(e).splitlines()[0]
    print("before renaming:", message[:message.index(",")], "...", message.split(", ")[-1])
torch.utils.rename_privateuse1_backend("toy")
print("after renaming: ", torch.device("toy"), "| backend name:", torch._C._get_privateuse1_backend_name())


# 2. A device module, torch.toy, that answers what torch.cuda answers for CUDA.
class ToyModule:
    @staticmethod
    def is_available():
        return True

    @staticmethod
    def device_count():
        return 1

    @staticmethod
    def current_device():
        return 0

    @staticmethod
    def is_initialized():
        return True

    @staticmethod
    def _is_in_bad_fork():
        return False

    @staticmethod
    def manual_seed_all(seed):
        pass


torch._register_device_module("toy", ToyModule)

# 3. Tensor.toy(), Tensor.is_toy, Module.toy(), ... generated from the name.
torch.utils.generate_methods_for_privateuse1_backend()
print("torch.toy.device_count():", torch.toy.device_count(),
      "| Tensor.toy:", hasattr(torch.Tensor, "toy"), "| Module.toy:", hasattr(torch.nn.Module, "toy"))
print("profiler activities:", sorted(a.name for a in torch.profiler.supported_activities()))


try:
    torch.ones(1).to("toy")  # a name and a module, but no device guard yet
except RuntimeError as e:
    print("to('toy') without a device guard:", e)


# 4. What a C++ backend registers as a DeviceGuardImpl and PrivateUse1HooksInterface,
#    here as Python objects (an experimental API that this torch provides).
class ToyGuard(torch._C._acc.DeviceGuard):
    def type_(self):
        return torch._C._autograd.DeviceType.PrivateUse1


class ToyHooks(torch._C._acc.PrivateUse1Hooks):
    def is_available(self):
        return True

    def has_primary_context(self, device_index):
        return True

    def is_built(self):
        return True


torch._C._acc.register_python_privateuseone_device_guard(ToyGuard())
torch._C._acc.register_python_privateuseone_hook(ToyHooks())
# --8<-- [end:toy_device]

# --8<-- [start:toy_kernels]
# The "device memory" of a toy tensor is a CPU tensor kept in a Python attribute.
def toy_tensor(cpu):
    t = torch._C._acc.create_empty_tensor(tuple(cpu.shape), cpu.dtype)  # no storage bytes
    t.cpu_data = cpu
    return t


toy_lib = torch.library.Library("aten", "IMPL")  # kernels for existing aten operators
ran = []


def toy_kernel(op_name):
    """Register the decorated function as the PrivateUse1 kernel of aten::op_name."""
    def register(fn):
        def kernel(*args, **kwargs):
            ran.append(op_name)
            return fn(*args, **kwargs)
        toy_lib.impl(op_name, kernel, "PrivateUse1")
        return fn
    return register


@toy_kernel("empty_strided")
def _(size, stride, *, dtype=None, layout=None, device=None, pin_memory=None):
    return toy_tensor(torch.empty_strided(size, stride, dtype=dtype))


@toy_kernel("empty.memory_format")
def _(size, *, dtype=None, layout=None, device=None, pin_memory=None, memory_format=None):
    return toy_tensor(torch.empty(size, dtype=dtype))


@toy_kernel("_copy_from")
def _(src, dst, non_blocking=False):
    data = src.cpu_data if src.device.type == "toy" else src
    (dst.cpu_data if dst.device.type == "toy" else dst).copy_(data)
    return dst


@toy_kernel("add.Tensor")
def _(a, b, *, alpha=1):
    return toy_tensor(torch.add(a.cpu_data, b.cpu_data, alpha=alpha))


@toy_kernel("mul.Tensor")
def _(a, b):
    return toy_tensor(a.cpu_data * b.cpu_data)


@toy_kernel("detach")
def _(a):
    return toy_tensor(a.cpu_data)


a = torch.arange(3.0).to("toy")
print("to('toy') ran:", ran, "| device:", a.device, "| is_toy:", a.is_toy)
print("keys:", torch._C._dispatch_keys(a))
ran.clear()
b = a + a.toy()
print("a + a ran:", ran)
print("back on the CPU:", b.cpu(), "| storage bytes on 'toy':", b.untyped_storage().nbytes())
show_table("aten::add.Tensor", ["PrivateUse1", "AutogradPrivateUse1", "AutogradCPU"])
# --8<-- [end:toy_kernels]

# --8<-- [start:toy_limits]
try:
    torch.sin(a)
except NotImplementedError as e:
    print("NotImplementedError:", str(e).split(". ")[0] + ".")
x = torch.ones(3).toy().requires_grad_()
ran.clear()
y = x * torch.full((3,), 2.0).toy()
print("y.grad_fn:", type(y.grad_fn).__name__)
try:
    y.backward(torch.ones(3).toy())
    print("backward ran:", ran, "| x.grad:", x.grad.cpu())
except RuntimeError as e:
    print("RuntimeError:", str(e).split(" INTERNAL ASSERT")[0])

# The same backward in a fresh process that sets the backend up before any autograd work.
import subprocess
import sys

fresh = subprocess.run([sys.executable, "-c", """
import torch
from torch.utils.backend_registration import _setup_privateuseone_for_python_backend

_setup_privateuseone_for_python_backend("toy")  # steps 1 to 4 above, in one call
lib = torch.library.Library("aten", "IMPL")


def wrap(cpu):
    t = torch._C._acc.create_empty_tensor(tuple(cpu.shape), cpu.dtype)
    t.cpu_data = cpu
    return t


def copy_from(src, dst, non_blocking=False):
    (dst.cpu_data if dst.device.type == "toy" else dst).copy_(src.cpu_data if src.device.type == "toy" else src)
    return dst


lib.impl("empty_strided", lambda size, stride, **kw: wrap(torch.empty_strided(size, stride, dtype=kw["dtype"])), "PrivateUse1")
lib.impl("_copy_from", copy_from, "PrivateUse1")
lib.impl("mul.Tensor", lambda a, b: wrap(a.cpu_data * b.cpu_data), "PrivateUse1")
lib.impl("detach", lambda a: wrap(a.cpu_data), "PrivateUse1")
x = torch.ones(3).toy().requires_grad_()
(x * torch.full((3,), 2.0).toy()).backward(torch.ones(3).toy())
print("fresh process: x.grad =", x.grad.cpu(), "| x.grad.device =", x.grad.device, flush=True)
import os
os._exit(0)  # skip interpreter teardown, which can abort once a toy device thread exists
"""], capture_output=True, text=True, check=True)
print(fresh.stdout.strip())
# --8<-- [end:toy_limits]

# --8<-- [start:toy_fallback]
from torch.utils._pytree import tree_leaves, tree_map

fallback_lib = torch.library.Library("_", "IMPL")  # fallbacks belong to no namespace
fell_back = []


def cpu_fallback(op, *args, **kwargs):
    """Any operator without a toy kernel: run it on the CPU data of the toy arguments."""
    fell_back.append(str(op))
    toys = {id(t.cpu_data): t for t in tree_leaves((args, kwargs))
            if isinstance(t, torch.Tensor) and t.is_toy}
    args, kwargs = tree_map(
        lambda v: v.cpu_data if isinstance(v, torch.Tensor) and v.is_toy else v,
        (args, kwargs))
    result = op(*args, **kwargs)

    def back(r):  # an out= argument comes back as itself, anything new as a toy tensor
        if not isinstance(r, torch.Tensor):
            return r
        return toys[id(r)] if id(r) in toys else toy_tensor(r)

    return tree_map(back, result)


fallback_lib.fallback(cpu_fallback, "PrivateUse1")
s = torch.sin(a)
print("torch.sin(a):", s.cpu(), "on", s.device, "| the fallback ran:", fell_back)
show_table("aten::sin", ["PrivateUse1"])
show_table("aten::sin.out", ["PrivateUse1"])
# --8<-- [end:toy_fallback]
