"""Views versus copies: which operators alias their input, and how to prove it."""
import torch

torch.set_printoptions(precision=4, sci_mode=False)

# --8<-- [start:schemas]
for op in (
    torch.ops.aten.transpose.int,
    torch.ops.aten.reshape.default,
    torch.ops.aten.contiguous.default,
    torch.ops.aten.index.Tensor,
    torch.ops.aten.add_.Tensor,
):
    print(op._schema)
# --8<-- [end:schemas]

# --8<-- [start:view_table]
def same_storage(a, b):
    """True when both tensors sit on the same StorageImpl (compare while both are alive)."""
    return a.untyped_storage().data_ptr() == b.untyped_storage().data_ptr()

root = torch.arange(24, dtype=torch.float32)
x = root.view(2, 3, 4)  # x is itself a view of root

candidates = {
    "x.view(6, 4)": lambda: x.view(6, 4),
    "x.transpose(0, 2)": lambda: x.transpose(0, 2),
    "x.permute(2, 0, 1)": lambda: x.permute(2, 0, 1),
    "x[:, 1:, ::2]": lambda: x[:, 1:, ::2],
    "x[0]": lambda: x[0],
    "x.unbind(0)[1]": lambda: x.unbind(0)[1],
    "x.unsqueeze(0)": lambda: x.unsqueeze(0),
    "x[0, :1].expand(5, 4)": lambda: x[0, :1].expand(5, 4),
    "x.diagonal(dim1=1, dim2=2)": lambda: x.diagonal(dim1=1, dim2=2),
    "x.unfold(2, 2, 2)": lambda: x.unfold(2, 2, 2),
    "x.reshape(6, 4)": lambda: x.reshape(6, 4),
    "x.mT.reshape(-1)": lambda: x.mT.reshape(-1),
    "x.detach()": lambda: x.detach(),
    "x.view(torch.int32)": lambda: x.view(torch.int32),
    "x[:, [0, 2]]": lambda: x[:, [0, 2]],
    "x[x > 5]": lambda: x[x > 5],
    "x.clone()": lambda: x.clone(),
}
print(f"{'expression':28}{'_is_view()':>11}{'_base is root':>15}{'same storage':>14}")
for expr, make in candidates.items():
    out = make()
    print(f"{expr:28}{out._is_view()!s:>11}{(out._base is root)!s:>15}{same_storage(out, x)!s:>14}")
# --8<-- [end:view_table]

# --8<-- [start:detach_forward_ad]
import warnings

import torch.autograd.forward_ad as fwAD

# The first make_dual of a process loads decompositions compiled with torch.jit.script;
# TorchScript's deprecation warning has nothing to do with forward AD.
warnings.filterwarnings("ignore", message=r"`torch\.jit\.script` is deprecated")

primal = torch.arange(4.0)
with fwAD.dual_level():
    dual = fwAD.make_dual(primal, torch.ones(4))  # primal plus a tangent, at this level
    aliases = {
        "dual[1:]": dual[1:],                            # differentiable in both modes
        "unpack_dual(dual).primal": fwAD.unpack_dual(dual).primal,  # backward only
        "dual.detach()": dual.detach(),                  # neither
    }
    print(f"{'alias of dual':26}{'_is_view()':>11}{'tangent':>22}{'same storage':>14}")
    for expr, out in aliases.items():
        tangent = fwAD.unpack_dual(out).tangent
        print(f"{expr:26}{out._is_view()!s:>11}{str(tangent):>22}{same_storage(out, dual)!s:>14}")
# --8<-- [end:detach_forward_ad]

# --8<-- [start:aliasing]
v = x[1, :, 2:]  # a view that starts 14 floats into root's storage
print("same storage:          ", same_storage(v, root))
print("same data_ptr():       ", v.data_ptr() == root.data_ptr())
print("offset of v, in bytes: ", v.data_ptr() - root.untyped_storage().data_ptr())

v.fill_(-1.0)  # writing through the view writes root
print(root.view(2, 3, 4)[1])

# A zero-byte storage has a null data pointer, so the test is meaningless for empty tensors.
print("two empty tensors 'share':", same_storage(torch.empty(0), torch.empty(0)))
# --8<-- [end:aliasing]

# --8<-- [start:view_vs_reshape]
t = torch.arange(6.0).view(2, 3).t()  # transposed: strides (1, 3)
try:
    t.view(6)
except RuntimeError as e:
    print(f"RuntimeError: {e}")

flat = t.reshape(6)  # silently falls back to a copy
print("reshape copied:", not same_storage(flat, t))
flat[0] = 100.0
print("t[0, 0] after writing flat[0]:", t[0, 0].item())
# --8<-- [end:view_vs_reshape]

# --8<-- [start:conj]
z = torch.tensor([1 + 2j, 3 - 1j])
c = z.conj()                                 # no arithmetic: a view with a flag set
print("c.is_conj():", c.is_conj(), "| c._is_view():", c._is_view(),
      "| same storage:", same_storage(c, z))
print("keys of c:", torch._C._dispatch_keys(c))
z[0] = 5 + 5j                                # c reads z's buffer, conjugated on access
print("c[0] after z[0] = 5+5j:", c[0].item())
r = c.resolve_conj()                         # materialised: new buffer, flag cleared
print("r.is_conj():", r.is_conj(), "| same storage:", same_storage(r, z),
      "| values:", r.tolist())
n = torch._neg_view(z)                       # the same trick for negation
print("keys of n:", torch._C._dispatch_keys(n))
print("n[1]:", n[1].item())
real = torch.ones(2)
print("real.conj() is real:", real.conj() is real)
# --8<-- [end:conj]
