"""ezyang's 2019 "PyTorch internals" talk, each part checked against this torch."""
# --8<-- [start:strides]
import torch

x = torch.arange(12.0).view(3, 4)
y = x[1:, 1::2]  # a view: no copy
print("x: size", tuple(x.shape), "stride", x.stride(), "offset", x.storage_offset())
print("y: size", tuple(y.shape), "stride", y.stride(), "offset", y.storage_offset())
same = y.untyped_storage().data_ptr() == x.untyped_storage().data_ptr()
print("y shares x's storage:", same)
s = x.untyped_storage()
print("storage:", type(s).__name__, "|", s.nbytes(), "bytes, no dtype of its own")
# --8<-- [end:strides]

# --8<-- [start:extension_points]
dense = torch.ones(2, 2)
for name, t in [
    ("dense", dense),
    ("sparse", dense.to_sparse()),
    ("meta", torch.empty(2, 2, device="meta", dtype=torch.int64)),
]:
    print(f"{name:6} device={t.device}  layout={t.layout}  dtype={t.dtype}")
# --8<-- [end:extension_points]


# --8<-- [start:dispatch_keys]
def keys(t):
    return str(torch._C._dispatch_keys(t))


same = keys(torch.ones(2)) == keys(torch.ones(2, dtype=torch.int64))
print("float32 and int64, same keys:", same)
print("dense :", keys(dense))
print("sparse:", keys(dense.to_sparse()))
print("meta  :", keys(torch.empty(2, device="meta")))
# --8<-- [end:dispatch_keys]

# --8<-- [start:variable]
v = torch.autograd.Variable(torch.ones(2), requires_grad=True)
print("Variable(...) returns a", type(v).__name__)
is_variable = isinstance(torch.ones(2), torch.autograd.Variable)
print("a plain tensor is a Variable:", is_variable)
print("Python tensor type:", [c.__name__ for c in type(v).__mro__])
loss = (v * 3).sum()
inputs = [f.name() for f, _ in loss.grad_fn.next_functions]
print("grad_fn:", loss.grad_fn.name(), "->", inputs)
# --8<-- [end:variable]

# --8<-- [start:layout]
import mmap
from pathlib import Path

import torchgen  # the code generator ships with the wheel

lib = Path(torch.__file__).parent / "lib"
directories = [b"aten/src/ATen/native/", b"aten/src/TH/", b"aten/src/THC/",
               b"aten/src/THNN/"]
with open(lib / "libtorch_cpu.so", "rb") as f:
    with mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as mm:
        for directory in directories:
            found = mm.find(directory) != -1
            print(f"{directory.decode():22} in libtorch_cpu.so:", found)
print("torchgen importable:", torchgen.__name__)
# --8<-- [end:layout]

# --8<-- [start:kernel]
op = torch.ops.aten.add.Tensor
print(op._schema)
print("tagged pointwise:", torch.Tag.pointwise in op.tags)
for key in ("CPU", "Meta", "Autograd"):
    registered = torch._C._dispatch_has_kernel_for_dispatch_key(op.name(), key)
    print(f"kernel registered for {key:8}", registered)
# --8<-- [end:kernel]
