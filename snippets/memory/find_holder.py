"""Finding what holds memory: a gc census of tensors, then gc.get_referrers."""
import gc

import contextlib
import io
import sys

import torch

sys.dont_write_bytecode = True      # importing leaks.py below must not leave __pycache__

# Standalone runs reuse the model, batches and graph_census of leaks.py
# (on the page, the earlier blocks defined them in the shared namespace).
with contextlib.redirect_stdout(io.StringIO()):
    from leaks import batches, graph_census, model, param_ptrs

# --8<-- [start:census]
def tensor_census():
    """Count live Python tensor objects by (shape, dtype)."""
    counts = {}
    for obj in gc.get_objects():
        if issubclass(type(obj), torch.Tensor):   # type(), not isinstance: no lazy-module side effects
            key = (tuple(obj.shape), str(obj.dtype).removeprefix("torch."))
            counts[key] = counts.get(key, 0) + 1
    return counts


class Evaluator:
    def __init__(self, model):
        self.model = model
        self.outputs = []

    def step(self, x):
        out = self.model(x)
        self.outputs.append(out)          # the leak: every output, with its graph
        return out.pow(2).mean().item()


before = tensor_census()
ev = Evaluator(model)
for x in batches:
    ev.step(x)
after = tensor_census()
for key in sorted(after):
    if after[key] != before.get(key, 0):
        print("new tensor objects:", key, after[key] - before.get(key, 0))
print("graph nodes behind ev.outputs[0]:", graph_census(ev.outputs[0], param_ptrs))
# --8<-- [end:census]

# --8<-- [start:referrers]
def find_tensor(shape):
    """Any live tensor object of this shape (found the way the census found it)."""
    return next(o for o in gc.get_objects()
                if issubclass(type(o), torch.Tensor) and tuple(o.shape) == shape)


def holders(obj, namespace):
    """What refers to obj, named through one more hop of gc.get_referrers."""
    lines = []
    for ref in gc.get_referrers(obj):
        if ref is namespace:
            continue                                  # our own variable `suspect`
        for owner in gc.get_referrers(ref):
            if owner is namespace:
                names = [k for k, v in namespace.items() if v is ref]
                lines.append(f"a {type(ref).__name__} held by global {names}")
            elif hasattr(owner, "__dict__") and not isinstance(owner, type):
                names = [k for k, v in vars(owner).items() if v is ref]
                if names:
                    lines.append(f"a {type(ref).__name__} in attribute {names[0]!r}"
                                 f" of an object of type {type(owner).__name__}")
    return lines


suspect = find_tensor((32, 1))
print("(32, 1) held by:  ", holders(suspect, globals()))
suspect = find_tensor((32, 256))
print("(32, 256) held by:", holders(suspect, globals()))
print("(32, 256) is the ReLU output saved in the graph:",
      any(suspect is t for t in [ev.outputs[i].grad_fn._saved_mat1 for i in range(4)]))
del suspect
ev.outputs.clear()                                    # the fix: drop the references
print("after clearing:", {k: v - before.get(k, 0) for k, v in tensor_census().items()
                          if v != before.get(k, 0)})
# --8<-- [end:referrers]
