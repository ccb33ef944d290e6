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

# --8<-- [start:dynamic_size]
import torch._dynamo


@torch.library.custom_op("demo::np_nonzero", mutates_args=())
def np_nonzero(x: torch.Tensor) -> torch.Tensor:
    return torch.from_numpy(np.stack(np.nonzero(x.numpy(force=True)), axis=1))


@np_nonzero.register_fake
def _(x):
    rows = torch.library.get_ctx().new_dynamic_size()  # a symbol: depends on the data
    return x.new_empty(rows, x.dim(), dtype=torch.int64)


def print_shapes(gm, example_inputs):
    for node in gm.graph.nodes:
        value = node.meta.get("example_value")
        if node.op == "call_function" and isinstance(value, torch.Tensor):
            print(f"{node.target} -> {value.shape}")
    return gm.forward


x = torch.tensor([[0.0, 1.0], [2.0, 0.0]])
torch._dynamo.reset()
def shifted_indices(x):
    return np_nonzero(x) + 1


out = torch.compile(shifted_indices, backend=print_shapes, fullgraph=True)(x)
print("result:", out.tolist())
print(torch.library.opcheck(np_nonzero, (x,)))
# --8<-- [end:dynamic_size]
