"""Tensor -> TensorImpl -> StorageImpl, observed from Python."""
import torch

# --8<-- [start:chain]
x = torch.arange(6.0)
alias = x                 # a second Python name: same object, same TensorImpl
view = x.view(2, 3)       # new TensorImpl, same StorageImpl
detached = x.detach()     # new TensorImpl, same StorageImpl
copy = x.clone()          # new TensorImpl, new StorageImpl

# _cdata is the address of the C++ object behind each Python object; compare, never print.
print(f"{'':10}{'same TensorImpl':>16}{'same StorageImpl':>18}")
for name, t in [("alias", alias), ("view", view), ("detached", detached), ("copy", copy)]:
    same_impl = t._cdata == x._cdata
    same_storage = t.untyped_storage()._cdata == x.untyped_storage()._cdata
    print(f"{name:10}{same_impl!s:>16}{same_storage!s:>18}")

# One StorageImpl has at most one Python storage object.
print("view's storage object is x's:", view.untyped_storage() is x.untyped_storage())

# TensorImpl::data_impl: data pointer = storage base + itemsize * storage_offset
part = view[1, 1:]
print("offset:", part.storage_offset(), "itemsize:", part.element_size(),
      "-> data_ptr - storage base =", part.data_ptr() - part.untyped_storage().data_ptr())
# --8<-- [end:chain]
