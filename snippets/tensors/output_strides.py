"""How an operator chooses the strides of the tensor it returns."""
import torch

# --8<-- [start:dense_keep]
def dense(t):
    """Non-overlapping and dense: some order of the dimensions is contiguous."""
    order = sorted(range(t.dim()), key=lambda d: -t.stride(d))
    return t.permute(order).is_contiguous()


x = torch.arange(12.0).view(3, 4)
inputs = {
    "x.t()": x.t(),
    "zeros(2, 3, 4).permute(2, 0, 1)": torch.zeros(2, 3, 4).permute(2, 0, 1),
    "x.t()[::2]": x.t()[::2],  # every other row of the transpose: gaps
    "x[:1].expand(3, 4)": x[:1].expand(3, 4),  # one row, three times: overlap
}
print(f"{'input':34}{'strides':>12}{'dense':>7}{'exp() strides':>15}")
for name, t in inputs.items():
    print(f"{name:34}{str(t.stride()):>12}{dense(t)!s:>7}{str(t.exp().stride()):>15}")
# --8<-- [end:dense_keep]

# --8<-- [start:mixed]
a = torch.zeros(3, 4)  # row-major
b = torch.zeros(4, 3).t()  # the same shape, column-major
print("a + b:", (a + b).stride(), "| b + a:", (b + a).stride())

nchw = torch.zeros(2, 3, 4, 5)
nhwc = nchw.to(memory_format=torch.channels_last)
bias = torch.zeros(1, 3, 1, 1)  # broadcast along N, H and W: its strides decide nothing
print("bias + nhwc:", (bias + nhwc).stride(), "| nchw + nhwc:", (nchw + nhwc).stride())

out = torch.empty(3, 4)  # an out= tensor of the right size keeps its own strides
torch.exp(b, out=out)
print("exp(b, out=out):", out.stride())
# --8<-- [end:mixed]

# --8<-- [start:empty_like]
samples = {
    "x.t()": x.t(),
    "nhwc": nhwc,
    "x.t()[::2]": x.t()[::2],
    "nhwc[:, :, ::2]": nhwc[:, :, ::2],
    "x[:1].expand(3, 4)": x[:1].expand(3, 4),
}
print(f"{'input':20}{'strides':>16}{'empty_like':>16}{'contiguous_format':>19}")
for name, t in samples.items():
    kept = torch.empty_like(t)  # memory_format=torch.preserve_format, the default
    plain = torch.empty_like(t, memory_format=torch.contiguous_format)
    strides = [str(s.stride()) for s in (t, kept, plain)]
    print(f"{name:20}{strides[0]:>16}{strides[1]:>16}{strides[2]:>19}")
print("x.t().clone():", x.t().clone().stride(), "| x.t().contiguous():",
      x.t().contiguous().stride())
# --8<-- [end:empty_like]

# --8<-- [start:downstream]
y = (x.t() * 2).relu()  # two elementwise ops later, still column-major
print("strides:", y.stride(), "| is_contiguous():", y.is_contiguous())
try:
    y.view(-1)
except RuntimeError as e:
    print("view(-1): RuntimeError:", str(e).split(" (")[0])
print("reshape(-1) copies:", y.reshape(-1).untyped_storage().data_ptr()
      != y.untyped_storage().data_ptr())
# --8<-- [end:downstream]
