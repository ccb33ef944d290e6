"""Memory formats: one logical NCHW shape, two physical orders."""
import torch

torch.manual_seed(0)

# --8<-- [start:channels_last]
nchw = torch.arange(2 * 3 * 4 * 5, dtype=torch.float32).view(2, 3, 4, 5)
nhwc = nchw.to(memory_format=torch.channels_last)

print("shape (both):      ", tuple(nhwc.shape))
print("NCHW strides:      ", nchw.stride())
print("channels_last:     ", nhwc.stride())
print("same values:       ", torch.equal(nchw, nhwc))
print("is_contiguous():   ", nhwc.is_contiguous())
print("is_contiguous(channels_last):", nhwc.is_contiguous(memory_format=torch.channels_last))
# Physically, channels_last is an NHWC tensor seen through a permutation:
print("permute(0,2,3,1) contiguous:", nhwc.permute(0, 2, 3, 1).is_contiguous())
print("first 6 floats in memory:", nhwc.permute(0, 2, 3, 1).reshape(-1)[:6].tolist())

# C == 1 or H == W == 1: both formats give the same strides, both answers are True.
for shape in [(2, 1, 4, 4), (2, 3, 1, 1)]:
    t = torch.empty(shape)
    print(shape, t.is_contiguous(), t.is_contiguous(memory_format=torch.channels_last))
# --8<-- [end:channels_last]

# --8<-- [start:propagation]
def fmt(t):
    if t.is_contiguous(memory_format=torch.channels_last) and not t.is_contiguous():
        return "channels_last"
    return "contiguous" if t.is_contiguous() else "other"

conv = torch.nn.Conv2d(3, 8, kernel_size=3).to(memory_format=torch.channels_last)
print("conv(nhwc):         ", fmt(conv(nhwc)))
print("nhwc + 1:           ", fmt(nhwc + 1))
print("empty_like(nhwc):   ", fmt(torch.empty_like(nhwc)))
print("nhwc.clone():       ", fmt(nhwc.clone()))
print("nhwc + nchw:        ", fmt(nhwc + nchw))
print("nchw + nhwc:        ", fmt(nchw + nhwc))
print("nhwc.contiguous():  ", fmt(nhwc.contiguous()), "(a copy)")
try:
    nhwc.view(2, -1)
except RuntimeError as e:
    print(f"RuntimeError: {e}")
print("nhwc.flatten(1) is a view:", nhwc.flatten(1)._is_view())
# --8<-- [end:propagation]
