"""Reading the dispatch table of an operator from a release build."""
import torch

# --8<-- [start:show_table]
import re

_ROW = re.compile(r"^(?P<key>\w+): (?P<ft>fallthrough )?registered at (?P<loc>.*) \[(?P<kind>.*)\]$")


def _where(loc):
    """Shorten a registration location to something stable for this torch."""
    if "/__w/pytorch/pytorch/" in loc:  # path on PyTorch's CI build machine
        return loc.split("/__w/pytorch/pytorch/", 1)[1]
    if "site-packages/torch/" in loc:  # a Python registration inside torch
        return "torch/" + loc.split("site-packages/torch/", 1)[1]
    if loc.rsplit(":", 1)[0].endswith(".cpp"):  # a C++ extension we built
        return "<extension>/" + loc.rsplit("/", 1)[-1]
    return "<user code>"


def show_table(op, keys):
    """Print the computed dispatch-table rows of `op` for the given keys."""
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
# --8<-- [end:show_table]

# --8<-- [start:add_table]
KEYS = ["CPU", "CUDA", "Meta", "SparseCPU", "BackendSelect", "ADInplaceOrView", "AutogradCPU",
        "AutocastCPU", "Python", "Conjugate"]
print("rows in the table of aten::add.Tensor:",
      len(torch._C._dispatch_dump_table("aten::add.Tensor").splitlines()))
show_table("aten::add.Tensor", KEYS)
# --8<-- [end:add_table]

# --8<-- [start:linear_table]
show_table("aten::linear", ["CPU", "Meta", "AutogradCPU", "NestedTensorCPU", "AutogradNestedTensor"])
has = torch._C._dispatch_has_kernel_for_dispatch_key
print("linear has a CompositeImplicitAutograd kernel:", has("aten::linear", "CompositeImplicitAutograd"))
print("add.Tensor has one:                          ", has("aten::add.Tensor", "CompositeImplicitAutograd"))
# --8<-- [end:linear_table]

# --8<-- [start:registrations]
# _dispatch_dump lists what was *registered* (alias keys included);
# _dispatch_dump_table lists the *computed* table, one row per runtime key.
dump = torch._C._dispatch_dump("aten::add.Tensor").splitlines()
for line in dump[:2]:
    print(line)
for line in dump[4:]:
    key = line.split(": registered")[0]
    if key.endswith("[alias]") or key.startswith("Meta"):
        print(key, "->", _where(line.split(" registered at ")[1].split(" :: ")[0]))
# --8<-- [end:registrations]

# --8<-- [start:trace]
import os
import subprocess
import sys

# TORCH_SHOW_DISPATCH_TRACE prints every dispatcher call, but only in builds
# compiled with it (debug builds); run a child process to check this wheel.
child = subprocess.run(
    [sys.executable, "-c", "import torch; a = torch.ones(2); print((a + a).tolist())"],
    env={**os.environ, "TORCH_SHOW_DISPATCH_TRACE": "1"},
    capture_output=True, text=True, check=True,
)
print("child stdout:", child.stdout.strip())
print("trace lines:", sum("[call]" in line for line in (child.stdout + child.stderr).splitlines()))
# --8<-- [end:trace]
