"""Layer 3: the kernels registered for aten::mul.Tensor (Learning path)."""
import torch

# --8<-- [start:table]
table = torch._C._dispatch_dump_table("aten::mul.Tensor")
for row in table.splitlines():
    if row.startswith(("AutogradCPU:", "ADInplaceOrView:", "BackendSelect:", "CPU:", "CUDA:")):
        print(row)
print("CPU kernel registered:",
      torch._C._dispatch_has_kernel_for_dispatch_key("aten::mul.Tensor", "CPU"))
print("CUDA kernel registered:",
      torch._C._dispatch_has_kernel_for_dispatch_key("aten::mul.Tensor", "CUDA"))
# --8<-- [end:table]

# --8<-- [start:symbols]
import mmap
import pathlib
import re

libtorch_cpu = pathlib.Path(torch.__file__).parent / "lib" / "libtorch_cpu.so"
with open(libtorch_cpu, "rb") as f, mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as mm:
    wanted = {   # C++ name -> its mangled (Itanium ABI) symbol prefix
        "at::meta::structured_mul_Tensor::meta": b"_ZN2at4meta21structured_mul_Tensor4metaE",
        "at::native::structured_mul_out::impl": b"_ZN2at6native18structured_mul_out4implE",
        "at::native::mul_stub": b"_ZN2at6native8mul_stubE",
    }
    for name, mangled in wanted.items():
        print(f"{name:40} in libtorch_cpu.so: {mm.find(mangled) != -1}")
    # DispatchStub<..., mul_stub>::<CPU capability> holds one kernel per instruction set
    variants = set()
    for m in re.finditer(rb"NS0_\d+mul_stub_DECLARE_DISPATCH_typeEE(\d+)", mm):
        n = int(m.group(1))
        variants.add(mm[m.end():m.end() + n].decode())
print("mul_stub kernel variants:", sorted(variants))

import os
import subprocess
import sys

# The choice is made per process; ATEN_CPU_CAPABILITY overrides the detection.
forced = subprocess.run(
    [sys.executable, "-c", "import torch; print(torch.backends.cpu.get_cpu_capability())"],
    env=dict(os.environ, ATEN_CPU_CAPABILITY="default"),
    capture_output=True, text=True, timeout=120).stdout.strip()
print("capability with ATEN_CPU_CAPABILITY=default:", forced)
# --8<-- [end:symbols]
