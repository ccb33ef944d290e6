"""TorchScript scripting: compile Python source to the TorchScript IR."""
# --8<-- [start:setup]
import os
import re
import tempfile
import warnings
import zipfile

import torch

# Show DeprecationWarnings raised inside torch when this file runs on its own (its page
# shows every warning already). Python's default filters hide them, even in a script run
# directly: the "Status" section shows what a script prints.
warnings.simplefilter("default", DeprecationWarning)
torch.manual_seed(0)
torch.set_printoptions(precision=4)


def strip_locations(graph) -> str:
    """The IR printout without its '# file:line:col' comments."""
    return re.sub(r"\s+# .*", "", str(graph))
# --8<-- [end:setup]


# --8<-- [start:script_fn]
def double_or_shift(x: torch.Tensor, steps: int) -> torch.Tensor:
    for _ in range(steps):
        if x.sum() > 0:
            x = x * 2
        else:
            x = x - 1
    return x


scripted = torch.jit.script(double_or_shift)
print("type:", type(scripted).__name__)
print(scripted.code)
# --8<-- [end:script_fn]

# --8<-- [start:script_graph]
print(strip_locations(scripted.graph))
# --8<-- [end:script_graph]

# --8<-- [start:script_schemas]
for kind in ("aten::gt", "aten::mul", "aten::sub"):
    (node,) = scripted.graph.findAllNodes(kind)  # searches the nested blocks too
    print(f"{kind:10} {node.schema()}")
# --8<-- [end:script_schemas]

# --8<-- [start:script_run]
for start in (torch.ones(2), -torch.ones(2)):
    print("input", start.tolist(), "->", scripted(start, 3).tolist(),
          "eager:", double_or_shift(start, 3).tolist())
try:
    scripted(torch.ones(2), 2.5)
except RuntimeError as e:
    print("RuntimeError:", str(e).splitlines()[0])
# --8<-- [end:script_run]

# --8<-- [start:script_save]
class Scale(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.weight = torch.nn.Parameter(torch.full((3,), 0.5))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return double_or_shift(x * self.weight, 1)


module = torch.jit.script(Scale())
path = os.path.join(tempfile.mkdtemp(), "scale.pt")
torch.jit.save(module, path)
loaded = torch.jit.load(path)
print("loaded type:", type(loaded).__name__)
print("same result:", torch.equal(loaded(torch.ones(3)), Scale()(torch.ones(3))))
print(loaded.code)
with zipfile.ZipFile(path) as archive:
    print("\n".join(sorted(archive.namelist())))
# --8<-- [end:script_save]
