"""Running, saving and lowering an ExportedProgram."""
import torch
from torch.export import export

torch.manual_seed(0)


class Head(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = torch.nn.Linear(4, 3)
        self.register_buffer("scale", torch.tensor(2.0))

    def forward(self, x):
        return torch.relu(self.lin(x)) * self.scale


class Counter(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("calls", torch.zeros((), dtype=torch.int64))

    def forward(self, x):
        self.calls += 1
        return x + 1


head = Head().eval()
x = torch.randn(2, 4)
ep = export(head, (x,))
counted = export(Counter(), (x,))

# --8<-- [start:run_save]
import os
import tempfile

runnable = ep.module()
print("module type:", type(runnable).__name__)
print("matches eager:", torch.equal(runnable(x), head(x)))

path = os.path.join(tempfile.mkdtemp(), "head.pt2")
torch.export.save(ep, path)
reloaded = torch.export.load(path)
print("reloaded type:", type(reloaded).__name__)
print("same graph code:", reloaded.graph_module.code == ep.graph_module.code)
print("same result:", torch.equal(reloaded.module()(x), head(x)))
# --8<-- [end:run_save]

# --8<-- [start:unflatten]
class Tower(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.encoder = torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.ReLU())
        self.head = torch.nn.Linear(8, 2)

    def forward(self, x):
        return self.head(self.encoder(x))


tower = Tower().eval()
tower_ep = export(tower, (x,))
first = next(node for node in tower_ep.graph.nodes if node.op == "call_function")
print(f"first node {first.name}, its nn_module_stack:",
      [path for path, _ in first.meta["nn_module_stack"].values()])
flat = tower_ep.module()
print("ep.module() calls:", [n.target for n in flat.graph.nodes if n.op == "call_module"])
nested = torch.export.unflatten(tower_ep)
print(f"unflatten: {type(nested).__name__}, submodules:",
      [name for name, _ in nested.named_modules() if name])
print("encoder's graph:", [(n.op, str(n.target)) for n in nested.encoder.graph.nodes])
print("matches eager:", torch.allclose(nested(x), tower(x)),
      "| same state_dict keys:", sorted(nested.state_dict()) == sorted(tower.state_dict()))
# --8<-- [end:unflatten]

# --8<-- [start:decompose]
core = ep.run_decompositions()
print(core.graph_module.code.strip())
functional = counted.run_decompositions()
print(functional.graph_module.code.strip())
for spec in functional.graph_signature.output_specs:
    print("out", f"{spec.arg.name:6}", f"{spec.kind.name:16}", spec.target)
# --8<-- [end:decompose]

# --8<-- [start:deploy_entry_points]
import inspect

import torch._inductor
import torch.onnx

print("torch.onnx.export(..., dynamo=...) default:", inspect.signature(torch.onnx.export).parameters["dynamo"].default)
print("aoti_compile_and_package", inspect.signature(torch._inductor.aoti_compile_and_package))
print("aot_inductor.package_constants_in_so:",
      torch._inductor.config.aot_inductor.package_constants_in_so)
# --8<-- [end:deploy_entry_points]

# --8<-- [start:aoti]
import re
import zipfile

package = torch._inductor.aoti_compile_and_package(
    ep, package_path=os.path.join(tempfile.mkdtemp(), "head_aoti.pt2")
)
model_files = sorted(
    re.sub(r"^\w{40,}", "<hash>", name.rsplit("/", 1)[1])
    for name in zipfile.ZipFile(package).namelist()
    if "/aotinductor/model/" in name
)
print("package holds:", model_files)
loaded = torch._inductor.aoti_load_package(package)
print("loaded type:", type(loaded).__name__)
print("matches eager:", torch.allclose(loaded(x), head(x)))
# --8<-- [end:aoti]

# --8<-- [start:baked_constants]
SHIFT = 2.0


class Shifted(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.sign = 1  # a plain attribute: neither a parameter nor a buffer

    def forward(self, x):
        return (x + SHIFT) * self.sign


model = Shifted()
zeros = torch.zeros(2)
shifted = export(model, (zeros,))
print(shifted.graph_module.code.strip())
SHIFT = -9.0
model.sign = -1
print("eager after the change:   ", model(zeros).tolist())
print("exported after the change:", shifted.module()(zeros).tolist())
# --8<-- [end:baked_constants]
