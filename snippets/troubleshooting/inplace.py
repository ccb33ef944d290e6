"""Row 2: "modified by an inplace operation"."""
import torch

# --8<-- [start:inplace_locate]
import os
import traceback

from torch.multiprocessing.reductions import StorageWeakRef
from torch.utils._python_dispatch import TorchDispatchMode

torch.manual_seed(0)
x = torch.randn(4, requires_grad=True)


def gate(x):
    y = x.sigmoid()          # SigmoidBackward0 saves its output y
    y.mul_(2)                # ...which this in-place op then overwrites
    return y


class WritesToSaved(TorchDispatchMode):
    """Report every in-place write to a storage that autograd has saved for backward."""

    def __init__(self):
        super().__init__()
        self.saved, self.writes = set(), []
        self.hooks = torch.autograd.graph.saved_tensors_hooks(self.pack, lambda t: t)

    def pack(self, t):                       # called for every tensor a node saves
        self.saved.add(StorageWeakRef(t.untyped_storage()))
        return t

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        for arg, value in zip(func._schema.arguments, args):
            written = arg.alias_info is not None and arg.alias_info.is_write
            if written and StorageWeakRef(value.untyped_storage()) in self.saved:
                torch_dir = os.path.dirname(torch.__file__)
                caller = [f for f in traceback.extract_stack() if not f.filename.startswith(torch_dir)][-2]
                self.writes.append(func)
                code = caller.line.split("#")[0].strip()       # the line, without its comment
                print(f"{func} writes to a tensor autograd saved, in {caller.name}(): {code}")
        return func(*args, **kwargs)


with WritesToSaved() as mode, mode.hooks:
    out = gate(x)                            # forward only: the write happens here
# --8<-- [end:inplace_locate]

# --8<-- [start:inplace_locate_view]
def gate_rows(x):
    y = x.sigmoid()
    head = y[:2]             # a view: same storage as the saved y
    head.mul_(2)
    return y


with WritesToSaved() as mode, mode.hooks:
    out = gate_rows(x)
x.grad = None
out.sum().backward()         # the graph holds what pack returned: no version check
print("backward of the graph built under the hooks: no error")
s = x.detach().sigmoid()
true_grad = s * (1 - s) * torch.tensor([2.0, 2.0, 1.0, 1.0])   # d/dx of sum(y), rows 0-1 doubled
print("its gradient:     ", [f"{g:.4f}" for g in x.grad.tolist()])
print("the true gradient:", [f"{g:.4f}" for g in true_grad.tolist()])
try:
    gate_rows(x).sum().backward()
except RuntimeError as e:
    print("without the hooks:", str(e).split(": ", 1)[1].split(" instead.")[0])
# --8<-- [end:inplace_locate_view]

# --8<-- [start:inplace_fix]
def gate_fixed(x):
    y = x.sigmoid()
    return y * 2             # out of place: the saved y stays at version 0


x.grad = None
gate_fixed(x).sum().backward()
s = x.detach().sigmoid()
print("fixed grad == 2 * sigmoid'(x):", torch.allclose(x.grad, 2 * s * (1 - s)))
with WritesToSaved() as mode, mode.hooks:
    out = gate_fixed(x)
print("in-place writes to saved tensors after the fix:", len(mode.writes))
# --8<-- [end:inplace_fix]
