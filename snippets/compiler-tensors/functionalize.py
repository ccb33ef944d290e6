"""Functionalization: in-place ops and views rewritten into a graph without mutation."""
import torch

torch.manual_seed(0)
torch.set_num_threads(1)

# --8<-- [start:before_after]
from torch.func import functionalize
from torch.fx.experimental.proxy_tensor import make_fx


def scale_first_row(x):
    row = x[0]  # a view of the input
    row.mul_(10)  # in place through the view: this changes x
    return x.sum(0)


print("--- make_fx: the ATen ops as they ran")
print(make_fx(scale_first_row)(torch.ones(2, 3)).code.strip())
print("--- make_fx(functionalize(...))")
print(make_fx(functionalize(scale_first_row))(torch.ones(2, 3)).code.strip())
eager_in, functional_in = torch.ones(2, 3), torch.ones(2, 3)
same_result = torch.equal(scale_first_row(eager_in), functionalize(scale_first_row)(functional_in))
print("same result:", same_result, "| input changed the same way:", torch.equal(eager_in, functional_in))
# --8<-- [end:before_after]

# --8<-- [start:aot]
from functorch.compile import make_boxed_func
from torch._functorch.aot_autograd import aot_function


def print_graph(gm, example_inputs):
    print(gm.code.strip())
    return make_boxed_func(gm.forward)


x = torch.ones(2, 3)
out = aot_function(scale_first_row, fw_compiler=print_graph)(x)
print("result:", out.tolist(), "| x afterwards:", x.tolist())
# --8<-- [end:aot]

# --8<-- [start:keep_mutations]
x = torch.ones(2, 3)
out = aot_function(scale_first_row, fw_compiler=print_graph, keep_inference_input_mutations=True)(x)
print("result:", out.tolist(), "| x afterwards:", x.tolist())
# --8<-- [end:keep_mutations]

# --8<-- [start:inductor_keeps]
import functools

import torch._dynamo
from torch._inductor.compile_fx import compile_fx


def show_inductor_graph(gm, example_inputs, **kwargs):
    """Stands in for Inductor's code generation: prints the graph it would compile."""
    print(gm.code.strip())
    return make_boxed_func(gm.forward)


torch._dynamo.reset()
x = torch.ones(2, 3)
no_codegen = functools.partial(compile_fx, inner_compile=show_inductor_graph)
out = torch.compile(scale_first_row, backend=no_codegen)(x)
print("result:", out.tolist(), "| x afterwards:", x.tolist())
# --8<-- [end:inductor_keeps]
