"""AOTAutograd: one captured graph becomes a forward graph and a backward graph."""
import torch
import torch._dynamo

torch.manual_seed(0)
torch.set_num_threads(1)

# --8<-- [start:aot_graphs]
from functorch.compile import make_boxed_func
from torch._dynamo.backends.common import aot_autograd


def show(title):
    def compiler(gm, example_inputs):
        print(f"=== {title} graph")
        print(gm.code.strip())
        return make_boxed_func(gm.forward)  # AOTAutograd calls compiled graphs with a boxed list
    return compiler


two_graphs = aot_autograd(fw_compiler=show("forward"), bw_compiler=show("backward"))


def weighted_sin(x, w):
    return (torch.sin(x) * w).sum()


torch._dynamo.reset()
x = torch.randn(4, requires_grad=True)
w = torch.randn(4, requires_grad=True)
loss = torch.compile(weighted_sin, backend=two_graphs)(x, w)
print("--- calling backward()")
loss.backward()
print("x.grad == cos(x) * w:", torch.allclose(x.grad, torch.cos(x) * w))
print("w.grad == sin(x):", torch.allclose(w.grad, torch.sin(x)))
# --8<-- [end:aot_graphs]

# --8<-- [start:aot_inference]
torch._dynamo.reset()
with torch.no_grad():
    torch.compile(weighted_sin, backend=two_graphs)(x, w)
# --8<-- [end:aot_inference]

# timeout="300": AOTAutograd traces, partitions and compiles forward and backward twice; in
# the builds of make test (three editions side by side on two cores) it took 83 to 85 s
# --8<-- [start:aot_function]
from torch._functorch.aot_autograd import aot_function
from torch._functorch.partitioners import min_cut_rematerialization_partition

recompute = aot_function(weighted_sin, fw_compiler=show("forward"), bw_compiler=show("backward"),
                         partition_fn=min_cut_rematerialization_partition)
recompute(x, w).backward()
# --8<-- [end:aot_function]

# --8<-- [start:decompositions]
import functools

import torch.nn.functional as F
from torch._dynamo.backends.debugging import aot_eager
from torch._inductor.decomposition import select_decomp_table


def layer_tail(x, w):
    return F.silu(x @ w).softmax(-1)


def print_ops(title):
    def compiler(gm, example_inputs):
        ops = [str(n.target).removeprefix("aten.") for n in gm.graph.nodes
               if n.op == "call_function"]
        print(f"{title}:\n  {', '.join(ops)}")
        return make_boxed_func(gm.forward)
    return compiler


xs = torch.randn(4, 8), torch.randn(8, 8)
torch._dynamo.reset()
as_aot_eager = functools.partial(aot_eager, fw_compiler=print_ops("aot_eager"))
torch.compile(layer_tail, backend=as_aot_eager)(*xs)
torch._dynamo.reset()
with_table = aot_autograd(fw_compiler=print_ops("Inductor's decomposition table"),
                          decompositions=select_decomp_table())
torch.compile(layer_tail, backend=with_table)(*xs)
# --8<-- [end:decompositions]
