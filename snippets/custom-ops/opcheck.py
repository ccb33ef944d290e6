"""torch.library.opcheck: testing the registrations against each other."""
import numpy as np
import torch


@torch.library.custom_op("demo::np_sin", mutates_args=())
def np_sin(x: torch.Tensor) -> torch.Tensor:
    return torch.from_numpy(np.sin(x.numpy(force=True))).to(x.device)


@np_sin.register_fake
def _(x):
    return torch.empty_like(x)


np_sin.register_autograd(
    lambda ctx, grad: grad * ctx.saved_tensors[0].cos(),
    setup_context=lambda ctx, inputs, output: ctx.save_for_backward(inputs[0]),
)

# --8<-- [start:pass]
samples = [
    (torch.randn(3),),
    (torch.randn(2, 5, requires_grad=True),),
    (torch.randn(4, dtype=torch.float64, requires_grad=True),),
]
for args in samples:
    result = torch.library.opcheck(np_sin, args)
print(result)
# --8<-- [end:pass]

# --8<-- [start:fail]
@torch.library.custom_op("demo::np_cumsum", mutates_args=())
def np_cumsum(x: torch.Tensor) -> torch.Tensor:
    return torch.from_numpy(np.cumsum(x.numpy(force=True)))  # NumPy flattens


@np_cumsum.register_fake
def _(x):
    return torch.empty_like(x)  # wrong: claims the input's shape


x = torch.randn(2, 3)
print("real output shape:", tuple(np_cumsum(x).shape))
try:
    torch.library.opcheck(np_cumsum, (x,))
except Exception as e:
    print(f"{type(e).__name__}: {str(e).splitlines()[0]}")
    print("caused by:", type(e.__cause__).__name__)
# --8<-- [end:fail]

# --8<-- [start:fix]
@np_cumsum.register_fake
def _(x):
    return x.new_empty(x.numel())  # flattened, like the real kernel


print(torch.library.opcheck(np_cumsum, (x,)))
# --8<-- [end:fix]
