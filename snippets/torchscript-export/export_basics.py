"""torch.export: one graph of ATen operators plus a signature."""
import torch

torch.manual_seed(0)


# --8<-- [start:export_model]
from torch.export import export


class Head(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = torch.nn.Linear(4, 3)
        self.register_buffer("scale", torch.tensor(2.0))

    def forward(self, x):
        return torch.relu(self.lin(x)) * self.scale


torch.manual_seed(0)
head = Head().eval()
x = torch.randn(2, 4)
ep = export(head, (x,))
print("type:", type(ep).__name__)
print(ep.graph_module.code.strip())
# --8<-- [end:export_model]

# --8<-- [start:export_graph]
print(ep.graph)
# --8<-- [end:export_graph]

# --8<-- [start:export_signature]
sig = ep.graph_signature
for spec in sig.input_specs:
    print("in ", f"{spec.arg.name:13}", f"{spec.kind.name:10}", spec.target)
for spec in sig.output_specs:
    print("out", f"{spec.arg.name:13}", f"{spec.kind.name:10}", spec.target)
print("state_dict keys:", list(ep.state_dict))
# --8<-- [end:export_signature]


# --8<-- [start:export_mutation]
class Counter(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("calls", torch.zeros((), dtype=torch.int64))

    def forward(self, x):
        self.calls += 1
        return x + 1


counted = export(Counter(), (x,))
print(counted.graph_module.code.strip())
for spec in counted.graph_signature.output_specs:
    print("out", f"{spec.arg.name:13}", f"{spec.kind.name:16}", spec.target)
# --8<-- [end:export_mutation]
