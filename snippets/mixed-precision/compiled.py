"""Autocast inside torch.compile: Dynamo records the region, AOTAutograd writes the casts."""
# --8<-- [start:aot_graph]
import torch
import torch.nn.functional as F
from functorch.compile import make_boxed_func
from torch._dynamo.backends.common import aot_autograd


def f(x, w):
    y = x @ w
    return F.mse_loss(y, x), y @ w


forward_graphs = []


def keep_forward(gm, example_inputs):
    forward_graphs.append(gm)
    return make_boxed_func(gm.forward)


torch._dynamo.reset()
compiled = torch.compile(f, backend=aot_autograd(fw_compiler=keep_forward))
x, w = torch.randn(4, 4), torch.randn(4, 4, requires_grad=True)
with torch.autocast("cpu", dtype=torch.bfloat16):
    loss, out = compiled(x, w)
print("loss:", loss.dtype, " out:", out.dtype)
for node in forward_graphs[0].graph.nodes:
    if node.op == "call_function":
        args = ", ".join(str(a) for a in node.args)
        dtype = node.meta["val"].dtype if "val" in node.meta else ""
        print(f"  {node.name:<11} = {node.target}({args}) -> {dtype}")
# --8<-- [end:aot_graph]

# --8<-- [start:inside]
def g(x, w):
    with torch.autocast("cpu", dtype=torch.bfloat16):
        return x @ w


dynamo_graphs = []


def keep_dynamo(gm, example_inputs):
    dynamo_graphs.append(gm)
    return gm.forward


torch._dynamo.reset()
out = torch.compile(g, backend=keep_dynamo)(x, w)
print("out:", out.dtype)
for node in dynamo_graphs[0].graph.nodes:
    if node.op == "call_function":
        name = getattr(node.target, "__name__", str(node.target))
        print(f"  {node.name:<15} = {name}{tuple(str(a) for a in node.args)}")
# --8<-- [end:inside]

# --8<-- [start:guard]
torch._dynamo.reset()
dynamo_graphs.clear()
h = torch.compile(lambda x, w: x @ w, backend=keep_dynamo)
print("called outside:", h(x, w).dtype)
with torch.autocast("cpu", dtype=torch.bfloat16):
    print("called inside: ", h(x, w).dtype)
print("graphs compiled:", len(dynamo_graphs))
# --8<-- [end:guard]
