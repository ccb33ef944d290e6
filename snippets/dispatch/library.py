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
import warnings

# No autograd kernel was registered, so AutogradCPU hits the fallback above.
xg = torch.ones(3, requires_grad=True)
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    out = torch.ops.mylib.scale_add(xg, torch.ones(3), 2.0)
    out.sum().backward()
for w in caught:
    print(f"{w.category.__name__}: {str(w.message).split('. ')[0]}.")
print("out.grad_fn:", type(out.grad_fn).__name__)
print("x.grad:", xg.grad)
# --8<-- [end:autograd_fallback]
