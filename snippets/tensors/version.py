"""The version counter: in-place writes bump it, views share it, autograd checks it."""
import torch

torch.set_printoptions(precision=4, sci_mode=False)

# --8<-- [start:version_basics]
x = torch.zeros(4)
print("fresh:             ", x._version)
x.add_(1)
print("after add_:        ", x._version)
x[0] = 5.0
print("after x[0] = 5:    ", x._version)
y = x * 2
print("after y = x * 2:   ", x._version, "(out-of-place: no bump)")
torch.mul(x, 2, out=x)
print("after out=x:       ", x._version)
with torch.no_grad():
    x.sub_(1)
print("after no_grad sub_:", x._version, "(still counted)")
# --8<-- [end:version_basics]

# --8<-- [start:version_views]
x = torch.zeros(4)
v = x[1:3]
v.mul_(2)
print("x, v after v.mul_:       ", x._version, v._version)
x.detach().add_(1)
print("after x.detach().add_:   ", x._version)
x.view(torch.int32).add_(1)
print("after int32 view add_:   ", x._version)
d = x.data
d.add_(1)
print("after x.data.add_:       ", x._version, "| x.data has its own:", d._version)

with torch.inference_mode():
    frozen = torch.ones(2)
try:
    frozen._version
except RuntimeError as e:
    print(f"RuntimeError: {e}")
# --8<-- [end:version_views]

# --8<-- [start:autograd_check]
a = torch.ones(3, requires_grad=True)
b = a.sigmoid()        # sigmoid saves its output b for backward
b.mul_(2)              # bumps b's version 0 -> 1
try:
    b.sum().backward()
except RuntimeError as e:
    print(f"RuntimeError: {e}")
# --8<-- [end:autograd_check]

# --8<-- [start:data_bypass]
a = torch.ones(3, requires_grad=True)
b = a.sigmoid()
b.sum().backward()
print("correct grad:             ", a.grad)

a = torch.ones(3, requires_grad=True)
b = a.sigmoid()
b.data.mul_(2)         # same write, but invisible to the version counter
b.sum().backward()     # no error ...
print("grad after b.data.mul_(2):", a.grad, "| b._version:", b._version)
# --8<-- [end:data_bypass]
