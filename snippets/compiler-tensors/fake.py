"""FakeTensor: the tensors torch.compile traces with (metadata, no storage, no values)."""
# --8<-- [start:modes]
import torch
from torch._subclasses.fake_tensor import FakeTensor, FakeTensorMode

fake_mode = FakeTensorMode()
with fake_mode:  # every tensor created or computed in here is fake
    w = torch.empty(16384, 16384, device="cuda")  # 1 GiB of float32, on a machine with no GPU
    x = torch.randn(8, 16384, device="cuda")
    y = torch.relu(x @ w.t())
print(repr(y))
print("a FakeTensor:", isinstance(y, FakeTensor), "| shape:", tuple(y.shape), "| dtype:", y.dtype, "| device:", y.device)
print(f"w reports {w.nbytes:,} bytes; its storage lives on '{w.untyped_storage().device}'")
print("dispatch keys of w:", torch._C._dispatch_keys(w))
# --8<-- [end:modes]

# --8<-- [start:from_tensor]
real = torch.arange(12.0).view(3, 4).t()  # a transposed view: not contiguous
fake = fake_mode.from_tensor(real)
print("real:", tuple(real.shape), real.stride(), "view:", real._is_view())
print("fake:", tuple(fake.shape), fake.stride(), "view:", fake._is_view())
print("one fake per real tensor:", fake_mode.from_tensor(real) is fake)
with fake_mode:
    for label, op in [("cpu + cuda", lambda: torch.ones(4) + torch.ones(4, device="cuda")),
                      ("real * fake", lambda: real * fake)]:
        try:
            op()
        except (RuntimeError, AssertionError) as e:
            print(f"{label}: {type(e).__name__}: {e}")
# --8<-- [end:from_tensor]

# --8<-- [start:data_dependent]
values = fake_mode.from_tensor(torch.tensor([0.0, 1.5, 0.0, 2.0]))
with fake_mode:
    print("values * 2 ->", repr(values * 2))
    for label, op in [("values.nonzero()", lambda: values.nonzero()),
                      ("values[values > 0]", lambda: values[values > 0]),
                      ("values.sum().item()", lambda: values.sum().item()),
                      ("bool(values.sum() > 0)", lambda: bool(values.sum() > 0))]:
        try:
            op()
        except RuntimeError as e:
            print(f"{label:23} -> {type(e).__name__}: {e}")
# --8<-- [end:data_dependent]

# --8<-- [start:unbacked]
from torch.fx.experimental.symbolic_shapes import GuardOnDataDependentSymNode, ShapeEnv

shape_mode = FakeTensorMode(shape_env=ShapeEnv())  # what Dynamo uses: fake tensors with a ShapeEnv
values = shape_mode.from_tensor(torch.tensor([0.0, 1.5, 0.0, 2.0]), static_shapes=True)
with shape_mode:
    idx = values.nonzero()
    total = values.sum().item()
    print("nonzero ->", idx.shape, "| item() ->", total, type(total).__name__)
    print("u0 has no example value:", idx.shape[0].node.hint, "| ranges:", shape_mode.shape_env.var_to_range)
    try:
        if idx.shape[0] > 2:  # a Python branch needs a yes or a no
            pass
    except GuardOnDataDependentSymNode as e:
        print(f"{type(e).__name__}: {str(e).splitlines()[0]}")
    torch._check(idx.shape[0] > 2)  # a fact the ShapeEnv may rely on from now on
    print("after torch._check:", shape_mode.shape_env.var_to_range, "| the same test now:", bool(idx.shape[0] > 2))
asserts = shape_mode.shape_env.deferred_runtime_asserts
print("runtime assertions to check when the graph runs:", [str(a.expr) for a in asserts[idx.shape[0].node.expr]])
# --8<-- [end:unbacked]

# --8<-- [start:dynamo_breaks]
import re

import torch._dynamo


def positive_part(values):
    return values[values > 0] * 2  # boolean-mask indexing calls nonzero


def scaled_by_total(values):
    return values * values.sum().item()


def graphs_of(fn, **options):
    """The operators of each graph Dynamo captures from fn, less its runtime asserts."""
    graphs = []

    def backend(gm, example_inputs):
        asserts = r"(sym_size_int|ge|le|_assert_scalar_default)(_\d+)?"
        graphs.append([n.name for n in gm.graph.nodes
                       if n.op in ("call_function", "call_method")
                       and not re.fullmatch(asserts, n.name)])
        return gm.forward
    torch._dynamo.reset()
    torch.compile(fn, backend=backend, **options)(torch.tensor([0.0, 1.5, 0.0, 2.0]))
    return graphs


for fn, flag in ((positive_part, "capture_dynamic_output_shape_ops"),
                 (scaled_by_total, "capture_scalar_outputs")):
    print(f"{fn.__name__}, default:", graphs_of(fn))
    with torch._dynamo.config.patch(**{flag: True}):
        print(f"{fn.__name__}, {flag}=True:", graphs_of(fn))
    print(f"{fn.__name__}, fullgraph=True:", graphs_of(fn, fullgraph=True))
# --8<-- [end:dynamo_breaks]
