"""The joint forward+backward graph, and how two partitioners split it."""
import torch

torch.manual_seed(0)
torch.set_num_threads(1)

# --8<-- [start:joint]
from functorch.compile import make_boxed_func
from torch._functorch.aot_autograd import aot_function
from torch._functorch.partitioners import default_partition, min_cut_rematerialization_partition


def mlp_head(x, w):
    h = x @ w  # a matmul
    y = torch.nn.functional.silu(h) * 2.0 + 1.0  # a chain of pointwise ops
    return (y * y).sum()  # a reduction to the loss


def boxed(gm, example_inputs):
    return make_boxed_func(gm.forward)


def print_joint(joint, joint_inputs, **kwargs):
    print(joint.code.strip())
    return default_partition(joint, joint_inputs, **kwargs)


x = torch.randn(16, 32, requires_grad=True)
w = torch.randn(32, 64, requires_grad=True)
aot_function(mlp_head, fw_compiler=boxed, bw_compiler=boxed, partition_fn=print_joint)(x, w).backward()
# --8<-- [end:joint]

# --8<-- [start:split]
def costs_nothing(node):
    """An input, or a transposed view of one: already alive, saving it allocates nothing."""
    return node.op == "placeholder" or (node.target is torch.ops.aten.t.default and node.args[0].op == "placeholder")


def reporting(partition_fn):
    def partition(joint, joint_inputs, **kwargs):
        forward, backward = partition_fn(joint, joint_inputs, **kwargs)
        [output] = forward.graph.find_nodes(op="output")
        saved = output.args[0][kwargs["num_fwd_outputs"]:]  # forward outputs past the loss go to backward
        forward_ops = {n.name for n in forward.graph.nodes if n.op == "call_function"}
        recomputed = [n.name for n in backward.graph.nodes if n.op == "call_function" and n.name in forward_ops]
        print(f"{partition_fn.__name__}:")
        print("  saved for backward:", ", ".join(
            n.name + (" (free)" if costs_nothing(n) else f" {list(n.meta['val'].shape)}") for n in saved))
        print(f"  new memory kept for backward: {sum(n.meta['val'].nbytes for n in saved if not costs_nothing(n)):,} bytes")
        print("  forward ops run again in backward:", ", ".join(recomputed) or "none")
        return forward, backward
    return partition


grads = []
for partition_fn in (default_partition, min_cut_rematerialization_partition):
    x.grad = w.grad = None
    aot_function(mlp_head, fw_compiler=boxed, bw_compiler=boxed, partition_fn=reporting(partition_fn))(x, w).backward()
    grads.append((x.grad, w.grad))
print("same gradients:", all(torch.allclose(a, b) for a, b in zip(*grads)))
# --8<-- [end:split]
