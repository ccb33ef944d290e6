"""What a tensor carries for autograd: the fields of AutogradMeta, seen from Python."""
# --8<-- [start:fields]
import torch

torch.manual_seed(0)
plain = torch.randn(3)                       # has never needed autograd
x = torch.randn(3, requires_grad=True)       # a leaf: requires_grad_ set by hand
y = x * 2                                    # a node's output: grad_fn_ set
first, second, third = y.unbind()            # three outputs of one node
v = y[1:]                                    # a differentiable view of y
v.retain_grad()

print(f"{'':7}{'requires_grad':>14}{'is_leaf':>8}{'grad_fn':>17}{'output_nr':>10}"
      f"{'_is_view()':>11}{'retains_grad':>13}")
for name, t in [("plain", plain), ("x", x), ("y", y), ("second", second), ("v", v)]:
    node = "None" if t.grad_fn is None else t.grad_fn.name()
    print(f"{name:7}{t.requires_grad!s:>14}{t.is_leaf!s:>8}{node:>17}{t.output_nr:>10}"
          f"{t._is_view()!s:>11}{t.retains_grad!s:>13}")
print("second and third come from one node:", second.grad_fn is third.grad_fn)
print("v._base is y:", v._base is y)
try:
    y.requires_grad_(False)
except RuntimeError as err:
    print(f"RuntimeError: {err}")
# --8<-- [end:fields]

# --8<-- [start:accumulator]
p = torch.randn(3, requires_grad=True)       # a fresh leaf, in no graph yet
acc = (p * 2).grad_fn.next_functions[0][0]   # that graph is gone, its leaf node kept
print(acc.name(), "| writes into p:", acc.variable is p)
print("a new graph reuses it:", (p * 3).grad_fn.next_functions[0][0] is acc)
acc.metadata["marked"] = True
del acc                                      # the last strong reference
print("after it died, a new graph gets a fresh one:", (p * 4).grad_fn.next_functions[0][0].metadata)

(p * 2).sum().backward()
g = p.grad
(p * 3).sum().backward()
print("p.grad after two passes:", p.grad, "| the same tensor object:", p.grad is g)
# --8<-- [end:accumulator]

# --8<-- [start:grad_dtype]
w = torch.ones(3, dtype=torch.bfloat16, requires_grad=True)  # a low-precision leaf
print("grad_dtype by default:", w.grad_dtype)
(w * 2).sum().backward()
print("w.grad:", w.grad.dtype)

w.grad = None
w.grad_dtype = torch.float32               # ask the engine for float32 gradients
(w * 2).sum().backward()
(w * 3).sum().backward()                   # the second pass accumulates in float32
print("with grad_dtype float32, w.grad:", w.grad.dtype, w.grad.tolist())
try:
    w.grad = torch.zeros(3, dtype=torch.float64)
except RuntimeError as e:
    print("assigning float64: RuntimeError:", str(e).split(".")[0])
w.grad_dtype = None                        # None: any dtype is accepted
w.grad = torch.zeros(3, dtype=torch.float64)
print("grad_dtype None, float64 accepted:", w.grad.dtype)
# --8<-- [end:grad_dtype]

# --8<-- [start:views]
base = x.clone()                             # a non-leaf that may be written in place
view = base[:2]
print("view:", view.grad_fn.name(), "| base:", base.grad_fn.name())
base.mul_(2)                                 # the base's history changes under the view
print("after base.mul_(2): view:", view.grad_fn.name(), "<-",
      view.grad_fn.next_functions[0][0].name())
view.add_(1)                                 # a write through the view changes the base's
print("after view.add_(1): base:", base.grad_fn.name())
(dx,) = torch.autograd.grad(base.sum(), x)
print("d(base.sum())/dx:", dx)
try:
    first.mul_(2)                            # a view from a multi-output node
except RuntimeError as err:
    print(f"RuntimeError: {err}")
# --8<-- [end:views]
