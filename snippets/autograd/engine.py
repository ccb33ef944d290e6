"""How the engine walks the graph: dependencies, the ready queue, execution order."""
# --8<-- [start:order]
import threading

import torch


def all_nodes(root):
    seen, stack, out = set(), [root], []
    while stack:
        node = stack.pop()
        if node is None or node in seen:
            continue
        seen.add(node)
        out.append(node)
        stack.extend(n for n, _ in node.next_functions)
    return out


torch.manual_seed(0)
x = torch.randn(3, requires_grad=True)
a = x * 2                       # branch 1, created first
b = x.exp()                     # branch 2, created second
loss = a.sum() + b.sum()

nodes = all_nodes(loss.grad_fn)
base = min(n._sequence_nr() for n in nodes)
label = {}
for n in nodes:
    seq = n._sequence_nr()
    label[n] = f"{n.name()}[seq {seq - base}]" if seq < 2**64 - 1 else f"{n.name()}[seq UINT64_MAX]"

deps = {n: 0 for n in nodes}            # what compute_dependencies() counts: in-edges
for n in nodes:
    for nxt, _ in n.next_functions:
        if nxt is not None:
            deps[nxt] += 1
print("dependencies:", ", ".join(f"{label[n]}={d}" for n, d in deps.items()))

ran = []
for n in nodes:
    n.register_prehook(lambda grad_outputs, n=n: ran.append(label[n]))
caller = threading.get_ident()
x.register_hook(lambda g: print("x's hook fires once, with the summed grad:",
                                torch.allclose(g, 2 + x.detach().exp()),
                                "| on the calling thread:", threading.get_ident() == caller))
loss.backward()
print("execution order:")
for step, name in enumerate(ran):
    print(f"  {step}: {name}")
# --8<-- [end:order]

# --8<-- [start:post_hook]
torch.manual_seed(0)
x = torch.randn(2, 3, requires_grad=True)
y = (x * 2).sum(dim=1)


def post(grad_inputs, grad_outputs):    # Node post-hook: after the node's backward ran
    print("MulBackward0: grad_outputs", [tuple(g.shape) for g in grad_outputs],
          "-> grad_inputs", [None if g is None else tuple(g.shape) for g in grad_inputs])


y.grad_fn.next_functions[0][0].register_hook(post)
y.backward(torch.ones(2))
# --8<-- [end:post_hook]

# --8<-- [start:pruning]
torch.manual_seed(0)
p = torch.randn(3, requires_grad=True)
q = torch.randn(3, requires_grad=True)
left = p.exp()
right = q.sin()
total = (left + right).sum()
visited = []
left.grad_fn.register_prehook(lambda g: visited.append("ExpBackward0"))
right.grad_fn.register_prehook(lambda g: visited.append("SinBackward0"))
(gp,) = torch.autograd.grad(total, p)   # only the path to p is needed
print("autograd.grad(total, p) ran:", visited, "| q.grad:", q.grad)
# --8<-- [end:pruning]
