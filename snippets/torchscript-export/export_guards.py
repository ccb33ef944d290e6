"""What export guarantees: shapes it specialised on, Dim ranges, no data-dependent Python."""
import torch
from torch.export import export

torch.manual_seed(0)


class Head(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = torch.nn.Linear(4, 3)
        self.register_buffer("scale", torch.tensor(2.0))

    def forward(self, x):
        return torch.relu(self.lin(x)) * self.scale


head = Head().eval()
x = torch.randn(2, 4)
ep = export(head, (x,))

# --8<-- [start:static_guard]
static = ep.module()
print("batch 2:", tuple(static(torch.randn(2, 4)).shape))
try:
    static(torch.randn(5, 4))
except Exception as e:
    print(f"{type(e).__name__}: {e}")
# --8<-- [end:static_guard]

# --8<-- [start:dynamic_dim]
from torch.export import Dim

batch = Dim("batch", min=1, max=1024)
dyn = export(head, (x,), dynamic_shapes={"x": {0: batch}})
print("range constraints:", dyn.range_constraints)
placeholder_shapes = {n.name: tuple(n.meta["val"].shape) for n in dyn.graph.nodes if n.op == "placeholder"}
print("placeholder shapes:", placeholder_shapes)
flexible = dyn.module()
for rows in (1, 5, 1024):
    print(f"batch {rows}:", tuple(flexible(torch.randn(rows, 4)).shape))
try:
    flexible(torch.randn(2000, 4))
except Exception as e:
    print(f"{type(e).__name__}: {e}")
# --8<-- [end:dynamic_dim]


# --8<-- [start:dim_specialised]
class FixedRows(torch.nn.Module):
    def forward(self, x):
        return x.reshape(2, 2, 2)


try:
    export(FixedRows(), (x,), dynamic_shapes={"x": {0: Dim("batch")}})
except Exception as e:
    print("type:", f"{type(e).__module__}.{type(e).__qualname__}")
    print("\n".join(str(e).splitlines()[:2]))
# --8<-- [end:dim_specialised]


# --8<-- [start:data_dependent]
import contextlib
import io
import logging


class SignSwitch(torch.nn.Module):
    def forward(self, x):
        if x.sum() > 0:
            return x * 2
        return x - 10


# On failure export logs a timestamped symbolic-shapes warning (silenced here) and
# prints the partial graph to stderr (captured here, shown once below).
logging.getLogger("torch.fx.experimental.symbolic_shapes").setLevel(logging.ERROR)
with contextlib.redirect_stderr(io.StringIO()):
    try:
        export(SignSwitch(), (x,))
    except Exception as e:
        error = e
print("type:", f"{type(error).__module__}.{type(error).__qualname__}")
print("is a RuntimeError:", isinstance(error, RuntimeError))
print("first line:", str(error).splitlines()[0])
print("partial graph:")
print("\n".join(line for line in str(error.partial_fx_graph).strip().splitlines() if "# File:" not in line))
# --8<-- [end:data_dependent]

# --8<-- [start:data_dependent_strict]
# strict=True: Dynamo analyses the bytecode of forward instead of running it.
with contextlib.redirect_stderr(io.StringIO()):  # the partial graph, printed again
    try:
        export(SignSwitch(), (x,), strict=True)
    except Exception as e:
        strict_error = e
print("type:", f"{type(strict_error).__module__}.{type(strict_error).__qualname__}")
print("is a RuntimeError:", isinstance(strict_error, RuntimeError))
message = str(strict_error).splitlines()
print("\n".join(line.strip() for line in message[:2]))
print("\n".join(line.strip() for line in message if line.lstrip().startswith(("Hint:", "For more details"))))
# --8<-- [end:data_dependent_strict]


# --8<-- [start:cond]
class SignSwitchCond(torch.nn.Module):
    def forward(self, x):
        return torch.cond(x.sum() > 0, lambda t: t * 2, lambda t: t - 10, (x,))


ep_cond = export(SignSwitchCond(), (x,))
print(ep_cond.graph_module.code.strip())
branches = ep_cond.module()
for sample in (torch.ones(2, 4), -torch.ones(2, 4)):
    print("matches eager:", torch.equal(branches(sample), SignSwitch()(sample)))
# --8<-- [end:cond]


# --8<-- [start:dim_hints]
def input_shapes(program):
    """The shapes export gave the user inputs, symbols included."""
    return {n.name: tuple(n.meta["val"].shape) for n in program.graph.nodes
            if n.op == "placeholder" and not n.name.startswith(("p_", "b_"))}


for hint in (Dim.AUTO, Dim.STATIC, Dim.DYNAMIC):
    try:
        program = export(head, (x,), dynamic_shapes={"x": {0: hint, 1: hint}})
        print(f"{hint}: {input_shapes(program)}, ranges {program.range_constraints}")
    except Exception as e:
        print(f"{hint}: {type(e).__name__}: {str(e).splitlines()[1].strip()}")


class AddPair(torch.nn.Module):
    def forward(self, x, y):
        return x + y


pair = export(AddPair(), (torch.randn(3, 4), torch.randn(3, 4)),
              dynamic_shapes={"x": {0: Dim.AUTO}, "y": {0: Dim.AUTO}})
print("x + y, Dim.AUTO on both batches:", input_shapes(pair))
rows = export(FixedRows(), (x,), dynamic_shapes={"x": {0: Dim.AUTO}})
print("FixedRows, Dim.AUTO on the batch:", input_shapes(rows))
auto_head = export(head, (x,), dynamic_shapes={"x": {0: Dim.AUTO}}).module()
print("batch 1 and 1000 run:", [tuple(auto_head(torch.randn(n, 4)).shape) for n in (1, 1000)])
# --8<-- [end:dim_hints]


# --8<-- [start:draft_export]
import gc
import os
import warnings

from torch.export import draft_export

# draft_export logs a summary of its report too (this block prints the report's items),
# and writes a trace for tlparse: into this directory rather than the system's temp.
logging.getLogger("torch.export._draft_export").setLevel(logging.ERROR)
os.environ["TORCH_DTRACE"] = os.path.abspath("draft-export-trace")

with warnings.catch_warnings():
    # The trace's log file is left open and closed by the garbage collector.
    warnings.simplefilter("ignore", ResourceWarning)
    for label, module, shapes in [("SignSwitch", SignSwitch(), None),
                                  ("FixedRows", FixedRows(), {"x": {0: Dim.DYNAMIC}})]:
        draft = draft_export(module, (x,), dynamic_shapes=shapes)
        print(f"{label}: {type(draft).__name__}, {len(draft._report.failures)} issue(s)")
        for failure in draft._report.failures:
            data = failure.data
            print(f"  {failure.failure_type.name}: {data['expr']}")
            if "result" in data:
                print(f"    specialised to the example's answer: {data['result']}")
            if "new_dynamic_shapes" in data:
                print(f"    suggested dynamic_shapes: {data['new_dynamic_shapes']}")

    drafted = draft_export(SignSwitch(), (x,)).module()
    print("x.sum() > 0:", bool(x.sum() > 0), "| on x, matches eager:",
          torch.equal(drafted(x), SignSwitch()(x)))
    try:
        drafted(-x)
    except RuntimeError as e:
        print("on -x:", str(e).splitlines()[0])
    del draft
    gc.collect()
# --8<-- [end:draft_export]
