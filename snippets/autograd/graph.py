"""The autograd graph: grad_fn, next_functions, AccumulateGrad, leaf tensors."""
# --8<-- [start:matmul_graph]
import torch

torch.manual_seed(0)
torch.set_printoptions(precision=4)
x = torch.randn(3, 4, requires_grad=True)
w = torch.randn(4, 5, requires_grad=True)
b = torch.randn(5, requires_grad=True)

y = torch.matmul(x, w) + b
z = y.sum()

print("x: is_leaf", x.is_leaf, "grad_fn", x.grad_fn)
print("y: is_leaf", y.is_leaf, "grad_fn", y.grad_fn)
print("z.grad_fn:", z.grad_fn)
print("y.grad_fn.next_functions:", y.grad_fn.next_functions)
# --8<-- [end:matmul_graph]

# --8<-- [start:walk]
def show(node, depth=0):
    """Print the graph below `node`, one line per edge (input_nr in brackets)."""
    if node is None:
        return
    label = node.name()
    if hasattr(node, "variable"):  # AccumulateGrad keeps the leaf it writes to
        v = node.variable
        label += f" -> leaf of shape {tuple(v.shape)}"
    print("  " * depth + label)
    for next_node, input_nr in node.next_functions:
        show(next_node, depth + 1)


show(z.grad_fn)
acc_b = y.grad_fn.next_functions[1][0]
print("AccumulateGrad of y's 2nd input writes into b:", acc_b.variable is b)
# --8<-- [end:walk]

# --8<-- [start:backward]
z.backward()
print("x.grad matches ones @ w.T:", torch.allclose(x.grad, torch.ones(3, 5) @ w.T))
print("b.grad:", b.grad)
# --8<-- [end:backward]

# --8<-- [start:names]
torch.manual_seed(0)
lin = torch.nn.Linear(4, 5)
x2 = torch.randn(3, 4)
x3 = torch.randn(2, 3, 4)
print("matmul + b      :", (torch.matmul(x, w) + b).grad_fn.name())
print("addmm           :", torch.addmm(b, x, w).grad_fn.name())
print("nn.Linear 2-D   :", lin(x2).grad_fn.name(),
      [n.name() for n, _ in lin(x2).grad_fn.next_functions if n is not None])
out3 = lin(x3)
print("nn.Linear 3-D   :", out3.grad_fn.name(), "<-",
      out3.grad_fn.next_functions[0][0].name())
m3 = torch.matmul(x3, w)
print("matmul 3-D @ 2-D:", m3.grad_fn.name(), "<-",
      m3.grad_fn.next_functions[0][0].name())
# --8<-- [end:names]
