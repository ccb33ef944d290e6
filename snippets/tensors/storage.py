"""Untyped storage: bytes, a device, an allocator; the dtype lives on the tensor."""
import torch

torch.set_printoptions(precision=4, sci_mode=False)

# --8<-- [start:untyped]
x = torch.tensor([0.0, 1.0, 2.0, 3.0])
s = x.untyped_storage()
print(type(s).__name__, "| nbytes:", s.nbytes(), "| len:", len(s), "| device:", s.device)
print("element_size: tensor", x.element_size(), "byte(s), storage", s.element_size(), "byte(s)")
print("bytes of 1.0:", s[4:8].tolist())  # indexing a storage indexes bytes

tail = x[1:]
print("tail offset (elements):", tail.storage_offset(), "| tail storage is s:", tail.untyped_storage() is s)

as_bytes = tail.view(torch.uint8)  # same bytes, another dtype: offset rescales
print("uint8 view offset:", as_bytes.storage_offset(), "| shape:", tuple(as_bytes.shape))
as_int = x.view(torch.int32)
print("float bits as int32:", as_int.tolist())
# --8<-- [end:untyped]

# --8<-- [start:typed_to_untyped]
# torch.FloatStorage([...]) + torch.FloatTensor(storage), without TypedStorage:
storage = torch.arange(1.0, 11.0).untyped_storage()   # 10 float32 = 40 bytes
tensor1 = torch.empty(0, dtype=torch.float32).set_(storage).view(2, 5)
tensor2 = tensor1.t()
print("storage bytes:", storage.nbytes(), "| tensor1 sits on it:", tensor1.untyped_storage() is storage)
print("tensor2 (t) shares it:", tensor2.untyped_storage().data_ptr() == storage.data_ptr())
print("tensor2 stride:", tensor2.stride())

tensor1[0, 0] = 100.0  # write through a tensor; storage[0] would be a single byte
print("tensor2[0]:", tensor2[0].tolist())

tensor3 = tensor2.contiguous()
print("tensor3 on a new storage:", tensor3.untyped_storage().data_ptr() != storage.data_ptr())
# --8<-- [end:typed_to_untyped]

# --8<-- [start:typed_warning]
typed = tensor1.storage()  # the old accessor: a TypedStorage, with a deprecation warning
print(type(typed).__name__, typed.dtype, "| size:", typed.size(), "elements")
print("wraps the same UntypedStorage:", typed.untyped() is tensor1.untyped_storage())

import warnings

with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")  # no filter hides it: the function itself stays quiet
    tensor2.storage()
print("warnings from a second .storage() call:", len(caught))
# --8<-- [end:typed_warning]

# --8<-- [start:resize_set]
t = torch.arange(4.0)
st = t.untyped_storage()
window = t[1:3]
ptr_before = st.data_ptr()

t.resize_(8)  # grows the same StorageImpl: new buffer, old bytes copied over
print("same storage object:", t.untyped_storage() is st, "| nbytes:", st.nbytes())
print("buffer moved:", st.data_ptr() != ptr_before, "| window still reads:", window.tolist())
t.resize_(2)  # shrinking only changes the metadata
print("after resize_(2): numel", t.numel(), "| nbytes", st.nbytes())

# set_: point a tensor at an existing storage with metadata of your choosing.
raw = torch.UntypedStorage(8)  # 8 uninitialised bytes
f32 = torch.empty(0, dtype=torch.float32).set_(raw)            # numel = 8 // 4
u8 = torch.empty(0, dtype=torch.uint8).set_(raw, 4, (4,), (1,))  # bytes 4..7
f32.copy_(torch.tensor([1.0, -2.0]))
print("f32:", f32.tolist(), "| bytes of -2.0:", u8.tolist())

# The storage can be emptied under its tensors (FSDP frees parameters this way).
w = torch.ones(1024)
ws = w.untyped_storage()
ws.resize_(0)
print("shape still", tuple(w.shape), "| nbytes", ws.nbytes(), "| null buffer:", ws.data_ptr() == 0)
ws.resize_(w.numel() * w.element_size())  # give it bytes again (contents undefined)
w.fill_(1.0)
print("refilled sum:", w.sum().item())
# --8<-- [end:resize_set]
