"""Layer 1: where torch.mul and Tensor.mul come from (Learning path)."""

# --8<-- [start:setup]
import torch

torch.manual_seed(0)
a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
b = torch.tensor([4.0, 5.0, 6.0], requires_grad=True)
y = torch.mul(a, b)
print("y =", y)
# --8<-- [end:setup]

# --8<-- [start:binding]
print("type(torch.mul):", type(torch.mul).__name__)
print("torch.mul is torch._C._VariableFunctions.mul:", torch.mul is torch._C._VariableFunctions.mul)
print("torch.Tensor.mul:", torch.Tensor.mul)
print("torch.Tensor.__mul__:", torch.Tensor.__mul__)
print("torch.Tensor MRO:", [c.__qualname__ for c in torch.Tensor.__mro__])
print("same function for the operator form:", torch.equal(a * b, torch.mul(a, b)))
try:
    torch.mul(a, "x")
except TypeError as e:                # raised by the C++ argument parser
    print(f"TypeError: {e}")
names = [n for n in dir(torch._C._VariableFunctions) if not n.startswith("__")]
private = [n for n in names if n.startswith("_")]
print(f"names on _VariableFunctions: {len(names)}, private (_name): {len(private)},",
      "on torch:", sum(hasattr(torch, n) for n in names))
print("the one left out, unique_dim, on torch:", hasattr(torch, "unique_dim"))
# --8<-- [end:binding]
