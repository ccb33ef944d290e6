"""detach(): same storage, same version counter, no graph; and the .data trap."""
# --8<-- [start:detach]
import torch

torch.manual_seed(0)
x = torch.randn(4, requires_grad=True)
y = x.sigmoid()
d = y.detach()
print("d: requires_grad", d.requires_grad, "| grad_fn", d.grad_fn, "| is_leaf", d.is_leaf)
print("shares storage with y:", d.untyped_storage().data_ptr() == y.untyped_storage().data_ptr())
d.mul_(2)
print("after d.mul_(2): y._version =", y._version, "| d._version =", d._version)
try:
    y.sum().backward()
except RuntimeError as err:
    print(f"RuntimeError: {err}")
# --8<-- [end:detach]

# --8<-- [start:data_trap]
x.grad = None
y = x.sigmoid()
y.data.mul_(2)                  # .data: same storage, but a *fresh* version counter
print("after y.data.mul_(2): y._version =", y._version)
y.sum().backward()              # no error ...
s = torch.sigmoid(x.detach())
print("x.grad                    :", x.grad)
print("grad of sigmoid, s*(1-s)  :", s * (1 - s))
print("grad of 2*sigmoid, 2s(1-s):", 2 * s * (1 - s))
print("x.grad is r*(1-r) with r = 2s:", torch.allclose(x.grad, 2 * s * (1 - 2 * s)))
# --8<-- [end:data_trap]
