"""no_grad versus inference_mode."""
# --8<-- [start:modes]
import torch

torch.manual_seed(0)
w = torch.randn(3, requires_grad=True)
with torch.no_grad():
    a = w * 2
with torch.inference_mode():
    b = w * 2
for name, t in [("no_grad  ", a), ("inference", b)]:
    print(name, "requires_grad", t.requires_grad, "| grad_fn", t.grad_fn,
          "| is_inference", t.is_inference())
    print("          keys:", torch._C._dispatch_keys(t))
print("a._version:", a._version)
try:
    b._version
except RuntimeError as err:
    print(f"RuntimeError: {err}")
# --8<-- [end:modes]

# --8<-- [start:inference_errors]
print("w + b works, AddBackward saves nothing:", (w + b).grad_fn.name())
try:
    w * b                       # MulBackward0 would have to save b
except RuntimeError as err:
    print(f"RuntimeError: {err}")
try:
    b.add_(1)                   # in-place outside inference_mode
except RuntimeError as err:
    print(f"RuntimeError: {err}")
c = b.clone()                   # the fix the message suggests
print("clone is_inference:", c.is_inference(), "| w * clone:", (w * c).grad_fn.name())
# --8<-- [end:inference_errors]

# --8<-- [start:no_grad_view]
h = w * 2                                    # an ordinary non-leaf in a graph
with torch.no_grad():
    part = h[:2]                             # a view, created in no_grad mode
print("part: requires_grad", part.requires_grad, "| grad_fn", part.grad_fn,
      "| _is_view()", part._is_view())
try:
    part.mul_(2)                             # in place, with grad mode back on
except RuntimeError as err:
    print(f"RuntimeError: {err}")
with torch.no_grad():
    part.mul_(2)                             # view and write both untracked: allowed
print("the same write inside no_grad: h._version =", h._version)
# --8<-- [end:no_grad_view]
