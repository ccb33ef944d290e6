"""Row 4: torch.compile errors or no speedup."""
import torch

# --8<-- [start:compile_explain]
import torch._dynamo as dynamo

torch.manual_seed(0)


def branchy(x):
    y = x.sin()
    if y.sum() > 0:                   # Python control flow on a tensor value
        y = y * 2
    return y.cos()


def chatty(x):
    y = x.sin()
    print("chatty: running")          # a side effect Dynamo will not put in a graph
    return y.cos()


x = torch.randn(8)
for fn in (branchy, chatty):
    report = dynamo.explain(fn)(x)
    print(f"{fn.__name__}: graphs={report.graph_count} breaks={report.graph_break_count}")
    for reason in report.break_reasons:
        print("   reason:", reason.reason.splitlines()[0])
# --8<-- [end:compile_explain]

# --8<-- [start:compile_fullgraph]
dynamo.reset()
try:
    torch.compile(branchy, backend="eager", fullgraph=True)(x)
except dynamo.exc.Unsupported as e:
    print(f"{type(e).__name__}:", "\n".join(str(e).splitlines()[:2]))
# --8<-- [end:compile_fullgraph]


# --8<-- [start:compile_fix]
def branchless(x):
    y = x.sin()
    y = torch.where(y.sum() > 0, y * 2, y)          # both sides computed, one selected
    return y.cos()


def with_cond(x):
    y = x.sin()
    y = torch.cond(y.sum() > 0, lambda t: t * 2, lambda t: t.clone(), (y,))
    return y.cos()


dynamo.reset()
for fn in (branchless, with_cond):
    report = dynamo.explain(fn)(x)
    compiled = torch.compile(fn, backend="aot_eager", fullgraph=True)
    same = all(torch.allclose(compiled(v), branchy(v)) for v in (x, -x.abs() - 2, x.abs() + 2))
    print(f"{fn.__name__}: graphs={report.graph_count} breaks={report.graph_break_count}"
          f" fullgraph ok, matches eager: {same}")
# --8<-- [end:compile_fix]

# --8<-- [start:compile_recompiles]
compiles = []


def counting_backend(gm, example_inputs):
    compiles.append(gm.code.strip().splitlines()[0])    # the graph's signature
    return gm.forward                                   # run the captured graph as is


def scale_shift(x, k):
    return x * k + 1


dynamo.reset()
fn = torch.compile(scale_shift, backend=counting_backend)
for k in (1, 2, 3, 4):                 # a new Python int each call
    fn(torch.randn(4), k)
for n in (4, 8, 16, 32):               # a new length each call
    fn(torch.randn(n), 1)
print("compilations:", len(compiles))
for signature in compiles:
    print("  ", signature)
# --8<-- [end:compile_recompiles]


# --8<-- [start:compile_why]
dynamo.reset()
fn = torch.compile(scale_shift, backend="eager")
fn(torch.randn(4), 1)
with dynamo.config.patch(error_on_recompile=True):      # turn each recompile into an error
    for args in ((torch.randn(4), 2), (torch.randn(8), 1)):
        try:
            fn(*args)
        except dynamo.exc.RecompileError as e:
            failed = [line.split("#")[0].strip(" -") for line in str(e).splitlines()
                      if line.strip().startswith("- 0/")]
            print("guard that failed:", failed)
# --8<-- [end:compile_why]

# --8<-- [start:compile_dynamic]
compiles.clear()
dynamo.reset()
fn = torch.compile(scale_shift, backend=counting_backend, dynamic=True)
for k, n in zip((1, 2, 3, 4), (4, 8, 16, 32)):
    fn(torch.randn(n), k)
print("compilations with dynamic=True:", len(compiles))
print("  ", compiles[0])
# --8<-- [end:compile_dynamic]
