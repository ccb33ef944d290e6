"""Layer 6: the autograd node torch.mul records (Learning path)."""
import torch

a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
b = torch.tensor([4.0, 5.0, 6.0], requires_grad=True)
y = torch.mul(a, b)

# --8<-- [start:node]
node = y.grad_fn
print("node:", node.name())
for fn, input_nr in node.next_functions:
    print("  next:", type(fn).__name__, input_nr)
print("next_functions lead to a and b:",
      node.next_functions[0][0].variable is a, node.next_functions[1][0].variable is b)
print("_saved_self :", node._saved_self)
print("_saved_other:", node._saved_other)
# --8<-- [end:node]

# --8<-- [start:node_partial]
c = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
d = torch.tensor([4.0, 5.0, 6.0])                 # a constant: no gradient wanted
partial = torch.mul(c, d).grad_fn
print("next:", [(type(fn).__name__, nr) for fn, nr in partial.next_functions])
print("_saved_self :", partial._saved_self)       # only needed for d's gradient
print("_saved_other:", partial._saved_other)      # needed for c's gradient
# --8<-- [end:node_partial]
