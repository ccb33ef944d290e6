"""Sizes, strides and storage offset: how an index becomes an address."""

# --8<-- [start:strides]
import torch

torch.manual_seed(0)
torch.set_printoptions(precision=4, sci_mode=False)

base = torch.arange(12, dtype=torch.float32)  # 12 floats, one storage
x = base.view(3, 4)
print("x      size:", tuple(x.shape), "stride:", x.stride(), "offset:", x.storage_offset())

y = x[1:, 1::2]  # rows 1..2, every other column starting at 1
print("y      size:", tuple(y.shape), "stride:", y.stride(), "offset:", y.storage_offset())
print(y)

xt = x.t()
print("x.t()  size:", tuple(xt.shape), "stride:", xt.stride(), "offset:", xt.storage_offset())
# --8<-- [end:strides]

# --8<-- [start:as_strided]
# Element [i, j] of y lives at storage index offset + i*stride[0] + j*stride[1].
off, (s0, s1) = y.storage_offset(), y.stride()
manual = [[base[off + i * s0 + j * s1].item() for j in range(2)] for i in range(2)]
print("by hand:", manual)

# as_strided is that formula as an operator: same storage, metadata of our choosing.
rebuilt = base.as_strided(size=(2, 2), stride=(4, 2), storage_offset=5)
print("as_strided equals y:", torch.equal(rebuilt, y))
# --8<-- [end:as_strided]

# --8<-- [start:expand]
row = torch.tensor([1.0, 2.0, 3.0])
big = row.expand(1000, 3)  # 1000 rows that are all the same 3 floats
print("expand stride:", big.stride())
print("storage bytes:", big.untyped_storage().nbytes(), "for", big.numel(), "elements")

try:
    big.add_(1)  # would write 1000 times to each of the same 3 floats
except RuntimeError as e:
    print(f"RuntimeError: {e}")

owned = big.clone()  # materialise: now 3000 separate floats
owned.add_(1)
print("after clone:", owned.stride(), owned.untyped_storage().nbytes(), "bytes")
# --8<-- [end:expand]

# --8<-- [start:expand_writes]
import operator
import warnings


def try_write(label, write):
    """Write into a fresh 1000x3 expand of one 3-float row; report what reached the row."""
    row = torch.tensor([1.0, 2.0, 3.0])
    big = row.expand(1000, 3)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            write(big)
            outcome = f"ok: row {row.tolist()}, big[999] {big[999].tolist()}"
        except RuntimeError as e:
            outcome = f"RuntimeError: {str(e).split(':')[0]}"
    print(f"{label:28}{outcome}")
    for w in caught:
        print(f"{'':28}warning: {str(w.message).split('. ')[0]}")


try_write("big.add_(1)", lambda b: b.add_(1))
try_write("big.copy_(zeros)", lambda b: b.copy_(torch.zeros(1000, 3)))
try_write("big.normal_()", lambda b: b.normal_())
try_write("big.fill_(5.0)", lambda b: b.fill_(5.0))
try_write("big.zero_()", lambda b: b.zero_())
try_write("big[0, 1] = 5.0", lambda b: operator.setitem(b, (0, 1), 5.0))
try_write("big[2] = [7, 8, 9]",
          lambda b: operator.setitem(b, 2, torch.tensor([7.0, 8.0, 9.0])))
try_write("big.index_put_(([0],), 4.0)",
          lambda b: b.index_put_((torch.tensor([0]),), torch.tensor(4.0)))
try_write("big.masked_fill_(mask, 6.0)",
          lambda b: b.masked_fill_(torch.tensor([True, False, False]), 6.0))
# --8<-- [end:expand_writes]
