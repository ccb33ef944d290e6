"""Contiguity: the definition, and when contiguous() copies."""
import torch

torch.set_printoptions(precision=4, sci_mode=False)

# --8<-- [start:contiguous_self]
m = torch.arange(12.0).view(3, 4)
print("m contiguous:", m.is_contiguous(), "| m.contiguous() is m:", m.contiguous() is m)

mt = m.t()
c = mt.contiguous()
print("m.t() contiguous:", mt.is_contiguous(), "| returns self:", c is mt)
print("m.t() shares m's storage:     ", mt.untyped_storage().data_ptr() == m.untyped_storage().data_ptr())
print("contiguous() result shares it:", c.untyped_storage().data_ptr() == m.untyped_storage().data_ptr())
print("strides before/after:", mt.stride(), c.stride(), "| c._base:", c._base)
# --8<-- [end:contiguous_self]

# --8<-- [start:size_one]
odd = torch.zeros(3, 1, 4).as_strided((3, 1, 4), (4, 99, 1))  # stride 99 on a size-1 dim
print("size-1 dim, stride 99:", odd.is_contiguous())
print("empty, transposed:    ", torch.empty(0, 5).t().is_contiguous())
print("column slice m[:, :2]:", m[:, :2].is_contiguous(), m[:, :2].stride())
print("row slice m[1:]:      ", m[1:].is_contiguous(), "offset", m[1:].storage_offset())
# --8<-- [end:size_one]

# --8<-- [start:slice_keeps_storage]
big = torch.zeros(1_000_000)  # 4 MB
head = big[:10]               # contiguous, so contiguous() will not copy it
kept = head.contiguous()
print("contiguous() is head:", kept is head, "| bytes kept alive:", kept.untyped_storage().nbytes())
del big
print("after del big:       ", head.untyped_storage().nbytes(), "bytes still held by head")
small = head.clone()
print("clone() holds only:  ", small.untyped_storage().nbytes(), "bytes")
# --8<-- [end:slice_keeps_storage]
