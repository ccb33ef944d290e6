"""torch.library.custom_op: wrapping a NumPy function as a real operator."""
# --8<-- [start:setup]
import re

import numpy as np
import torch

torch.manual_seed(0)
torch.set_printoptions(precision=4)

_ROW = re.compile(r"^(?P<key>\w+): (?P<ft>fallthrough )?registered at (?P<loc>.*) \[(?P<kind>.*)\]$")


def _where(loc):
    """Shorten a registration location to something stable for this torch."""
    if "/__w/pytorch/pytorch/" in loc:
        return loc.split("/__w/pytorch/pytorch/", 1)[1]
    if "site-packages/torch/" in loc:
        return "torch/" + loc.split("site-packages/torch/", 1)[1]
    if loc.rsplit(":", 1)[0].endswith(".cpp"):
        return "<extension>/" + loc.rsplit("/", 1)[-1]
    return "<user code>"


def show_table(op, keys):
    """Print selected rows of the dispatcher's computed table for `op`."""
    rows = {}
    for line in torch._C._dispatch_dump_table(op).splitlines():
        m = _ROW.match(line)
        if m:
            rows[m["key"]] = m
    for key in keys:
        m = rows.get(key)
        kind = ("fallthrough " if m["ft"] else "") + m["kind"]
        print(f"{key:<12} {kind:<24} {_where(m['loc'])}")
# --8<-- [end:setup]

# --8<-- [start:define]
@torch.library.custom_op("demo::np_sin", mutates_args=())
def np_sin(x: torch.Tensor) -> torch.Tensor:
    # Leaves PyTorch: autograd, fake tensors and compile cannot see inside.
    return torch.from_numpy(np.sin(x.numpy(force=True))).to(x.device)


x = torch.linspace(0, 1, 4)
print("np_sin(x):", np_sin(x))
print("type:", type(np_sin).__name__)
print("schema:", torch.ops.demo.np_sin.default._schema)
print("same op object:", np_sin._opoverload is torch.ops.demo.np_sin.default)
# --8<-- [end:define]

# --8<-- [start:table]
show_table("demo::np_sin", ["CPU", "CUDA", "Meta", "AutogradCPU"])
# --8<-- [end:table]
