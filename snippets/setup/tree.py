"""What of the source tree ships inside the wheel (Setting up)."""
import torch

# --8<-- [start:wheel_files]
import os
import pathlib

import torchgen

torch_dir = pathlib.Path(torch.__file__).parent
include = torch_dir / "include"


def count(base, suffix):
    """Files under `base` whose name ends with `suffix`."""
    return sum(name.endswith(suffix) for _, _, names in os.walk(base) for name in names)


rows = [
    ("torch/**/*.py", count(torch_dir, ".py")),
    ("torch/include/c10 headers", count(include / "c10", ".h")),
    ("torch/include/ATen headers", count(include / "ATen", ".h")),
    ("  of which ATen/ops (generated)", count(include / "ATen" / "ops", ".h")),
    ("torch/include/torch/csrc headers", count(include / "torch" / "csrc", ".h")),
    (".cpp files anywhere under torch/", count(torch_dir, ".cpp")),
]
for label, n in rows:
    print(f"{label:33} {n:5}")
packaged = pathlib.Path(torchgen.__file__).parent / "packaged"
print("torchgen/packaged yaml:")
for path in sorted(packaged.rglob("*.yaml")):
    print("   ", path.relative_to(packaged))
# --8<-- [end:wheel_files]

# --8<-- [start:so_paths]
import collections
import mmap
import re

lib = torch_dir / "lib"
source_paths = set()
for so in ("libc10.so", "libtorch_cpu.so", "libtorch_python.so"):
    with open(lib / so, "rb") as f, mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as mm:
        for m in re.finditer(rb"/__w/pytorch/pytorch/([\w/.\-]+\.(?:cpp|cu|h))", mm):
            source_paths.add(m.group(1).decode())
by_top = collections.Counter(p.split("/")[0] for p in source_paths)
print("distinct source paths baked into the libraries:", len(source_paths))
for top, n in sorted(by_top.items()):
    print(f"   {top + '/':13} {n}")
print("aten/src/ATen/native/BinaryOps.cpp listed:",
      "aten/src/ATen/native/BinaryOps.cpp" in source_paths)
third_party = sorted({p.split("/")[1] for p in source_paths if p.startswith("third_party/")})
print("third_party/ projects:", ", ".join(third_party))
# --8<-- [end:so_paths]
