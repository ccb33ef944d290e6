"""The version counter: in-place writes bump it, views share it."""
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
# --8<-- [end:version_views]

# --8<-- [start:what_bumps]
import ctypes

x = torch.zeros(4)


def bumps(label, write):
    before = x._version
    write()
    print(f"{label:30}+{x._version - before}")


bumps("x.add_(0)", lambda: x.add_(0))                  # values unchanged
bumps("x.zero_() on zeros", lambda: x.zero_())
bumps("x.resize_(4), same size", lambda: x.resize_(4))
bumps("x.resize_(8)", lambda: x.resize_(8))
bumps("x.unsqueeze_(0)", lambda: x.unsqueeze_(0))      # metadata only
bumps("x.set_(torch.ones(3))", lambda: x.set_(torch.ones(3)))
alias = torch.from_dlpack(x)                           # same bytes, a new TensorImpl
bumps("torch.from_dlpack(x).add_(7)", lambda: alias.add_(7))
print("x after that write:", x, "| the alias's own counter:", alias._version)

arr = x.numpy()                                        # a NumPy array on x's bytes
bumps("x.numpy()[0] = -1", lambda: arr.__setitem__(0, -1.0))
cell = ctypes.c_float.from_address(x.data_ptr() + 4)   # a raw pointer to x[1]
bumps("write through data_ptr()", lambda: setattr(cell, "value", -2.0))
print("x after those writes:", x)
# --8<-- [end:what_bumps]
