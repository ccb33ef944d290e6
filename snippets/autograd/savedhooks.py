"""Saved-tensor hooks: see and change what the graph keeps alive."""
# --8<-- [start:count]
import torch

torch.manual_seed(0)
packed = []


def pack(t):                        # called in forward, once per saved tensor
    packed.append(t)
    return t


def unpack(t):                      # called in backward, when the node unpacks it
    return t


lin = torch.nn.Linear(256, 256)
x = torch.randn(64, 256)            # input does not require grad
with torch.autograd.graph.saved_tensors_hooks(pack, unpack):
    h = lin(x).relu()
    loss = (h * h).sum()

for t in packed:
    print(tuple(t.shape), t.dtype, t.untyped_storage().nbytes(), "bytes",
          "| is x:", t is x, "| shares h's storage:",
          t.untyped_storage().data_ptr() == h.untyped_storage().data_ptr())
unique = {t.untyped_storage().data_ptr(): t.untyped_storage().nbytes() for t in packed}
print("pack calls:", len(packed), "| bytes naively:", sum(t.untyped_storage().nbytes() for t in packed),
      "| distinct storages:", len(unique), "| bytes:", sum(unique.values()))
# --8<-- [end:count]

# --8<-- [start:compress]
def pack_bf16(t):
    return t.dtype, t.to(torch.bfloat16)    # keep half the bytes until backward


def unpack_bf16(packed):
    dtype, t = packed
    return t.to(dtype)


x = torch.randn(8, requires_grad=True)
with torch.autograd.graph.saved_tensors_hooks(pack_bf16, unpack_bf16):
    y = x.sin()                              # SinBackward0 saves self
print("raw saved:", y.grad_fn._raw_saved_self)
print("unpacked dtype:", y.grad_fn._saved_self.dtype,
      "| max |unpacked - x|:", round((y.grad_fn._saved_self - x).abs().max().item(), 4))
y.sum().backward()
print("max |x.grad - cos(x)|:", round((x.grad - x.detach().cos()).abs().max().item(), 4))
# --8<-- [end:compress]
