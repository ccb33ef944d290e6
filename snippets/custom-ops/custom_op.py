"""torch.library.custom_op: wrapping a NumPy function as a real operator."""
# --8<-- [start:setup]
import numpy as np
import torch

torch.manual_seed(0)
torch.set_printoptions(precision=4)
# --8<-- [end:setup]

# show_table is Operator dispatch's helper (snippets/dispatch/table.py, region show_table);
# the page includes it from there. Run on its own, this file loads the same region.
from pathlib import Path

_table = (Path(__file__).resolve().parents[1] / "dispatch" / "table.py").read_text()
exec(_table.split("# --8<-- [start:show_table]\n")[1].split("# --8<-- [end:show_table]")[0])

# --8<-- [start:define]
@torch.library.custom_op("demo::np_sin", mutates_args=())
def np_sin(x: torch.Tensor) -> torch.Tensor:
    # Leaves PyTorch: autograd, fake tensors and compile cannot see inside.
    return torch.from_numpy(np.sin(x.numpy(force=True))).to(x.device)


x = torch.linspace(0, 1, 4)
print("np_sin(x):", np_sin(x))
print("type:", type(np_sin).__name__)
print("schema:", torch.ops.demo.np_sin.default._schema)
print("same op object:", np_sin._opoverload is torch.ops.demo.np_sin.default)
# --8<-- [end:define]

# --8<-- [start:table]
show_table("demo::np_sin", ["CPU", "CUDA", "Meta", "AutogradCPU"])
# --8<-- [end:table]

# --8<-- [start:device_types]
@torch.library.custom_op("demo::np_sin_cpu", mutates_args=(), device_types="cpu")
def np_sin_cpu(x: torch.Tensor) -> torch.Tensor:
    return torch.from_numpy(np.sin(x.numpy()))


show_table("demo::np_sin_cpu", ["CPU", "CUDA", "Meta", "AutogradCPU"])
# --8<-- [end:device_types]

# --8<-- [start:register_kernel]
@torch.library.custom_op("demo::twice", mutates_args=())
def twice(x: torch.Tensor) -> torch.Tensor:
    return x * 2  # the definition's function: the kernel of every device


@twice.register_kernel("cpu")
def _(x):
    return torch.from_numpy(x.numpy() * 2)  # a CPU implementation of its own


show_table("demo::twice", ["CPU", "CUDA", "Meta", "AutogradCPU"])
print("twice(x):", twice(torch.ones(2)))
# --8<-- [end:register_kernel]


# --8<-- [start:no_alias]
@torch.library.custom_op("demo::same", mutates_args=())
def same(x: torch.Tensor) -> torch.Tensor:
    return x  # the input itself


@torch.library.custom_op("demo::flat", mutates_args=())
def flat(x: torch.Tensor) -> torch.Tensor:
    return x.view(-1)  # a view of the input


for name, op in (("demo::same", same), ("demo::flat", flat)):
    try:
        op(torch.ones(2, 2))
    except RuntimeError as e:  # the message names the module first: keep what follows
        print(f"{name}: RuntimeError: {str(e).split('): ', 1)[1].split('. ')[0]}")
# --8<-- [end:no_alias]
