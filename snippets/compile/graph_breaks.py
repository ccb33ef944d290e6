"""Graph breaks: where Dynamo stops a graph, explain(), fullgraph=True, and the fixes."""
import torch
import torch._dynamo

torch.manual_seed(0)
torch.set_num_threads(1)


# --8<-- [start:explain]
def noisy_step(x):
    y = torch.sin(x) * 2
    print("checkpoint reached")  # Python side effect
    if y.sum() > 0:  # branch on a tensor value
        y = y + 1
    return torch.cos(y)


import re

sample = torch.linspace(0.1, 1.0, 8)  # fixed values: the branch is taken on every run
torch._dynamo.reset()
report = torch._dynamo.explain(noisy_step)(sample)
print("graph_count:", report.graph_count)
print("graph_break_count:", report.graph_break_count)
for i, br in enumerate(report.break_reasons, 1):
    frame = br.user_stack[-1]
    # The source line itself, not its number: the same whether this runs from a file or a notebook.
    function = re.sub(r"_at_\d+$", "_at_<line>", frame.name)
    print(f"break {i}: {br.reason.splitlines()[0]!r} in {function}: {frame.line}")
# --8<-- [end:explain]

# --8<-- [start:explain_detail]
print(report.break_reasons[0].reason)
# --8<-- [end:explain_detail]

# --8<-- [start:explain_forms]
import os
import warnings

with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    old_form = torch._dynamo.explain(noisy_step, sample)  # the form older articles show
new_form = torch._dynamo.explain(noisy_step)(sample)
for warning in caught:
    print(f"{warning.category.__name__}, attributed to {os.path.basename(warning.filename)}:")
    print(f"  {warning.message}")
print("same counts either way:",
      (old_form.graph_count, old_form.graph_break_count) == (new_form.graph_count, new_form.graph_break_count))
# --8<-- [end:explain_forms]

# --8<-- [start:fullgraph]
torch._dynamo.reset()
try:
    torch.compile(noisy_step, backend="eager", fullgraph=True)(sample)
except torch._dynamo.exc.Unsupported as e:
    print(f"{type(e).__module__}.{type(e).__name__}: {str(e).splitlines()[0]}")
# --8<-- [end:fullgraph]


# --8<-- [start:fixed]
def quiet_step(x):
    y = torch.sin(x) * 2
    y = torch.where(y.sum() > 0, y + 1, y)  # both sides computed, one selected
    return torch.cos(y)


torch._dynamo.reset()
report = torch._dynamo.explain(quiet_step)(sample)
print("graph_count:", report.graph_count, "graph_break_count:", report.graph_break_count)
print("same as the original:", torch.allclose(torch.compile(quiet_step, backend="eager", fullgraph=True)(sample),
                                              noisy_step(sample)))
# --8<-- [end:fixed]


# --8<-- [start:allow_in_graph]
def branchy(y):
    if y.sum() > 0:
        return y + 1
    return y


def calls_branchy(x):
    return torch.cos(branchy(torch.sin(x) * 2))


for label in ("plain", "allow_in_graph"):
    if label == "allow_in_graph":
        torch._dynamo.allow_in_graph(branchy)
    report = torch._dynamo.explain(calls_branchy)(sample)  # explain() resets Dynamo first
    print(f"{label:14} graph_count: {report.graph_count} graph_break_count: {report.graph_break_count}"
          f" first reason: {report.break_reasons[0].reason.splitlines()[0]!r}")
    ops = [[getattr(n.target, "__name__", str(n.target))
            for n in gm.graph.nodes if n.op == "call_function"] for gm in report.graphs]
    print("  operators per graph:", ops)
    for br in report.break_reasons:
        frames = " -> ".join(frame.name for frame in br.user_stack)
        print(f"  break reason {br.reason.splitlines()[0]!r}, stack: {frames}")
torch._dynamo.reset()
try:
    torch.compile(calls_branchy, backend="eager", fullgraph=True)(sample)
except Exception as e:
    print(f"fullgraph=True: {type(e).__module__}.{type(e).__name__}: {str(e).splitlines()[0]}")
torch._dynamo.disallow_in_graph(branchy)
# --8<-- [end:allow_in_graph]

# --8<-- [start:disable]
skipped = torch.compiler.disable(branchy)  # a new function; branchy itself is unchanged


def calls_skipped(x):
    return torch.cos(skipped(torch.sin(x) * 2))


report = torch._dynamo.explain(calls_skipped)(sample)
ops = [[getattr(n.target, "__name__", str(n.target))
        for n in gm.graph.nodes if n.op == "call_function"] for gm in report.graphs]
print("graph_count:", report.graph_count, "| operators per graph:", ops)
for br in report.break_reasons:
    frames = " -> ".join(frame.name for frame in br.user_stack)
    print(f"break reason {br.reason.splitlines()[0]!r}, stack: {frames}")
torch._dynamo.reset()
try:
    torch.compile(calls_skipped, backend="eager", fullgraph=True)(sample)
except torch._dynamo.exc.Unsupported as e:
    print("fullgraph=True: Unsupported:", str(e).splitlines()[0])
# --8<-- [end:disable]
