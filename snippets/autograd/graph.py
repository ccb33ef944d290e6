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

# --8<-- [start:draw]
import matplotlib.pyplot as plt

names = {id(x): "x", id(w): "w", id(b): "b"}  # the leaves, by the tensor each AccumulateGrad holds


def label(node):
    if hasattr(node, "variable"):
        return f"AccumulateGrad\n{names[id(node.variable)]} {tuple(node.variable.shape)}"
    return node.name()


# A layered layout: a node's layer is its longest path from the root, so every edge points down.
layer, edges, order = {z.grad_fn: 0}, [], [z.grad_fn]
for node in order:  # breadth first; `order` grows as nodes are found
    for next_node, input_nr in node.next_functions:
        if next_node is None:
            continue
        edges.append((node, next_node, input_nr))
        layer[next_node] = max(layer.get(next_node, 0), layer[node] + 1)
        if next_node not in order:
            order.append(next_node)
rows = {}
for node in order:
    rows.setdefault(layer[node], []).append(node)
place = {node: (1.6 * (i - (len(row) - 1) / 2), -depth) for depth, row in rows.items() for i, node in enumerate(row)}

fig, ax = plt.subplots(figsize=(6.4, 4.4))
boxes = {}
for node, (px, py) in place.items():
    leaf = hasattr(node, "variable")
    boxes[node] = ax.text(px, py, label(node), ha="center", va="center", fontsize=9,
                          bbox={"boxstyle": "round,pad=0.4", "facecolor": "#d9ecf7" if leaf else "#fbe3d6",
                                "edgecolor": "#0072B2" if leaf else "#D55E00"})
for parent, child, input_nr in edges:  # from the bottom of a node's box to the top of the next one's
    ax.annotate("", xy=(0.5, 1), xycoords=boxes[child], xytext=(0.5, 0), textcoords=boxes[parent],
                arrowprops={"arrowstyle": "-|>", "color": "#595959", "shrinkA": 2, "shrinkB": 2})
ax.set_xlim(-2.2, 2.2)
ax.set_ylim(-max(rows) - 0.5, 0.5)
ax.axis("off")
ax.set_title("z.grad_fn and everything its next_functions reach")
fig.savefig("autograd-graph.svg")
for depth, row in rows.items():
    print(f"layer {depth}:", ", ".join(label(node).replace("\n", " ") for node in row))
# --8<-- [end:draw]

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
