"""Mutable custom operators: mutates_args, the schema test, auto_functionalized."""
import numpy as np
import torch

torch.set_printoptions(precision=4)

# --8<-- [start:define]
@torch.library.custom_op("demo::np_clip_", mutates_args=("x",))
def np_clip_(x: torch.Tensor, limit: float) -> None:
    np.clip(x.numpy(), -limit, limit, out=x.numpy())  # writes into x's memory


@np_clip_.register_fake
def _(x, limit):
    return None  # nothing to compute: the op returns nothing, it writes x


print("schema:", torch.ops.demo.np_clip_.default._schema)
x = torch.linspace(-1, 1, 5)
np_clip_(x, 0.5)
print("x after np_clip_(x, 0.5):", x)
print(torch.library.opcheck(np_clip_, (torch.linspace(-1, 1, 5), 0.5)))
# --8<-- [end:define]

# --8<-- [start:schema_check]
@torch.library.custom_op("demo::np_clip_undeclared", mutates_args=())
def np_clip_undeclared(x: torch.Tensor, limit: float) -> torch.Tensor:
    np.clip(x.numpy(), -limit, limit, out=x.numpy())  # writes x, but says it does not
    return x.clone()


@torch.library.custom_op("demo::never_writes", mutates_args=("x",))
def never_writes(x: torch.Tensor) -> torch.Tensor:
    return x + 1  # declared mutable, never written


for op, args in ((np_clip_undeclared, (torch.linspace(-1, 1, 5), 0.5)),
                 (never_writes, (torch.linspace(-1, 1, 5),))):
    op.register_fake(lambda x, *rest: torch.empty_like(x))
    try:
        result = torch.library.opcheck(op, args, test_utils="test_schema")
        print(f"{op._name}: {result}")
    except Exception as e:
        print(f"{op._name}: {type(e).__name__}: {str(e).split(' (scroll')[0]}")
# --8<-- [end:schema_check]

# --8<-- [start:auto_functionalized]
import torch._dynamo
from functorch.compile import make_boxed_func
from torch._dynamo.backends.common import aot_autograd


def clip_input(x):
    np_clip_(x, 0.5)
    return x.sum()


def print_graph(gm, example_inputs):
    print(gm.code.strip())
    return make_boxed_func(gm.forward)


torch._dynamo.reset()
x = torch.linspace(-1, 1, 5)
total = torch.compile(clip_input, backend=aot_autograd(fw_compiler=print_graph))(x)
print("total:", total, "| x afterwards:", x)
x = torch.linspace(-1, 1, 5)
result = torch.ops.higher_order.auto_functionalized_v2(
    torch.ops.demo.np_clip_.default, limit=0.5, _x_base_index=0, _all_bases=[x])
print("auto_functionalized_v2 called eagerly returns:", result)
print("and leaves x as it was:", x)
# --8<-- [end:auto_functionalized]

# --8<-- [start:reinplace]
from torch._inductor.utils import run_and_get_code


def clip_only(x):
    np_clip_(x, 0.5)


torch._dynamo.reset()
x = torch.linspace(-1, 1, 5)
_, (source,) = run_and_get_code(torch.compile(clip_only), x)
call = source[source.index("    def call(self, args):"):source.index("        return ")]
print("\n".join(line for line in call.splitlines() if "#" not in line))
print("x afterwards:", x)
print("clones or copies in the generated code:",
      any(word in source for word in ("clone", "copy_")))
# --8<-- [end:reinplace]
