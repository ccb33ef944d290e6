"""__torch_dispatch__: intercepting aten ops below autograd."""
import torch

# --8<-- [start:mode]
from torch.utils._python_dispatch import TorchDispatchMode


class LogAten(TorchDispatchMode):
    """Print every aten operator that reaches the dispatcher's Python key."""

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        print("  ", func)
        return func(*args, **(kwargs or {}))


torch.manual_seed(0)
x = torch.randn(3, 4, requires_grad=True)
w = torch.randn(2, 4, requires_grad=True)
b = torch.randn(2, requires_grad=True)
with LogAten():
    print("forward:")
    loss = torch.nn.functional.linear(x, w, b).relu().sum()
    print("backward:")
    loss.backward()
# --8<-- [end:mode]

# --8<-- [start:inference]
class OpNames(TorchDispatchMode):
    """Collect the name of every aten operator that reaches the Python key."""

    def __init__(self):
        super().__init__()
        self.names = []

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        self.names.append(str(func))
        return func(*args, **(kwargs or {}))


for label, guard in [("grad mode", torch.enable_grad), ("no_grad", torch.no_grad),
                     ("inference_mode", torch.inference_mode)]:
    with guard(), OpNames() as mode:
        torch.nn.functional.linear(x, w, b)
    print(f"{label + ':':<16}", ", ".join(mode.names))
# --8<-- [end:inference]

# --8<-- [start:python_key]
DK = torch._C.DispatchKey
included = torch._C._dispatch_tls_is_dispatch_key_included
print("Python key included outside the mode:", included(DK.Python))
with LogAten():
    print("Python key included inside the mode: ", included(DK.Python))
# --8<-- [end:python_key]

# --8<-- [start:count]
from collections import Counter


class CountAten(TorchDispatchMode):
    def __init__(self):
        super().__init__()
        self.counts = Counter()

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        self.counts[str(func)] += 1
        return func(*args, **(kwargs or {}))


model = torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.GELU(), torch.nn.Linear(8, 2))
inp = torch.randn(5, 4)
with CountAten() as counter:
    model(inp).sum().backward()
for name, n in sorted(counter.counts.items()):
    print(f"{n:>2}  {name}")
print("total aten calls:", counter.counts.total())
# --8<-- [end:count]
