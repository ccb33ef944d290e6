"""retain_grad: .grad on non-leaf tensors."""
# --8<-- [start:retain]
import warnings

import torch

torch.manual_seed(0)
x = torch.randn(3, requires_grad=True)
h = x * 2                       # non-leaf
loss = (h ** 2).sum()

with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    loss.backward(retain_graph=True)
    print("h.grad without retain_grad:", h.grad)
print("warning:", caught[0].message)

h.retain_grad()
print("h.retains_grad:", h.retains_grad, "| h.is_leaf:", h.is_leaf)
x.grad = None
loss.backward()
print("h.grad == 2*h:", torch.equal(h.grad, 2 * h.detach()))
print("x.grad == 8*x:", torch.allclose(x.grad, 8 * x.detach()))
# --8<-- [end:retain]

# --8<-- [start:retain_late]
x.grad = None
g = x * 3
out = g.sum()
out.backward(retain_graph=True)
g.retain_grad()                  # too late for the pass that already ran
print("retain_grad after backward -> g.grad:", g.grad)
out.backward()
print("next pass fills it:", g.grad)
# --8<-- [end:retain_late]

# --8<-- [start:retain_order]
leaf = torch.ones(3, requires_grad=True)
mid = leaf * 2
mid.retain_grad()                    # registered first...
mid.register_hook(lambda g: g * 10)  # ...yet this tensor hook runs before it
(mid ** 2).sum().backward()
print("dL/dmid = 2*mid:", (2 * mid).tolist(), "| mid.grad:", mid.grad.tolist())
# --8<-- [end:retain_order]
