"""register_fake: shape inference for meta and fake tensors."""
import numpy as np
import torch


@torch.library.custom_op("demo::np_sin", mutates_args=())
def np_sin(x: torch.Tensor) -> torch.Tensor:
    return torch.from_numpy(np.sin(x.numpy(force=True))).to(x.device)


# --8<-- [start:no_fake]
try:
    np_sin(torch.empty(2, 3, device="meta"))
except RuntimeError as e:
    print("RuntimeError:", str(e).split(". ")[0] + ".")
# --8<-- [end:no_fake]

# --8<-- [start:register_fake]
@np_sin.register_fake
def _(x):
    # Only metadata: same shape, dtype and device as the input, no data.
    return torch.empty_like(x)


m = np_sin(torch.empty(2, 3, device="meta"))
print("meta:", m.device, tuple(m.shape), m.dtype)

from torch._subclasses.fake_tensor import FakeTensorMode

with FakeTensorMode():
    big = torch.empty(100_000, 1_000)  # would be 400 MB; fake tensors hold no storage
    out = np_sin(big)
print("fake:", type(out).__name__, tuple(out.shape), out.dtype)
# --8<-- [end:register_fake]
