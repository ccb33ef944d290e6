# %% [markdown]
# # The compile stack lab: backends, graph breaks, guards and the backward graph
#
# Four exercises on [The compile stack](../compile.md) chapter, in the order a
# compiled call meets them: the backend Dynamo hands its graph to, a branch that breaks
# the graph, a guard that makes every call compile again, and the backward graph
# AOTAutograd makes. Each exercise has a cell to complete (it holds `...`), a worked
# solution (folded: try first), and a check that prints `correct`, or what is wrong and
# why. The checks test the mechanism, not one value: an answer that only fits the
# obvious case fails.
#
# To work through it, download the notebook, complete a cell, run it, and run the
# check below its solution (not the solution itself, which would replace your answer).
# Every cell of the notebook was run by the build with the torch named at its top.
# No exercise needs Inductor or a C++ compiler: the backends run the captured graphs
# as they are.

# %% tags=["setup"]
import logging

import torch
import torch._dynamo
from torch._dynamo.backends.common import aot_autograd
from torch._functorch.aot_autograd import make_boxed_func

torch.manual_seed(0)
# Dynamo logs a warning for some graph breaks; the checks below explain them instead.
torch._logging.set_logs(dynamo=logging.ERROR)


def traced_ops(gm):
    """The operators and methods an FX graph calls, in order, by name."""
    names = []
    for node in gm.graph.nodes:
        if node.op == "call_method":  # x.sin(): the method's name
            names.append(node.target)
        elif node.op == "call_function":  # torch.relu, operator.mul, aten.cos.default
            target = node.target
            is_aten = isinstance(target, torch._ops.OpOverload)
            names.append(str(target) if is_aten else target.__name__)
    return names


def show_graph(gm, example_inputs):
    print(traced_ops(gm))
    return gm.forward


torch._dynamo.reset()
compiled = torch.compile(lambda x: torch.relu(x.sin() * 2), backend=show_graph)
print(compiled(torch.randn(4)).shape)

# %% [markdown]
# ## Exercise 1: a backend that counts its graphs {#a-backend-that-counts}
#
# A backend is a function `backend(gm, example_inputs)` that Dynamo calls once per
# graph it captures, with the graph as a `GraphModule` and one example tensor per
# input; it returns a callable that Dynamo runs in place of the graph, then and on
# every later call that reuses it. Complete `counting_backend` so that it appends each
# graph it is given to `graphs` and runs it unchanged. The next exercises count
# compilations with it. See
# [Dynamo captures a frame into an FX graph](../compile.md#dynamo-captures-a-frame-into-an-fx-graph)
# and [`ConvertFrame`](pytorch:torch/_dynamo/convert_frame.py#ConvertFrame).

# %% tags=["starter"] exercise="counting-backend"
graphs = []


def counting_backend(gm, example_inputs):
    """Record gm in graphs; return what Dynamo should run for it."""
    ...

# %% tags=["solution"]
graphs = []


def counting_backend(gm, example_inputs):
    """Record gm in graphs; return what Dynamo should run for it."""
    graphs.append(gm)
    return gm.forward  # the graph itself, run as it was captured

# %% tags=["check"]
def check_counting_backend():
    def f(x):
        return (x.cos() + 1) * x

    torch._dynamo.reset()
    graphs.clear()
    g = torch.compile(f, backend=counting_backend)
    x = torch.linspace(-1.0, 1.0, 5)
    try:
        outs = [g(x), g(x * 3)]
    except Exception as error:
        cause = getattr(error, "inner_exception", error)  # what the backend raised
        return (
            f"wrong: the compiled call raised {type(error).__name__} ({cause}). "
            "A backend returns a callable "
            "Dynamo runs on each call's inputs, not the result of running the graph "
            "once on the example inputs."
        )
    if not all(torch.allclose(out, f(a)) for out, a in [(outs[0], x), (outs[1], x * 3)]):
        return "wrong: the compiled function returned other values than f itself"
    if len(graphs) != 1:
        return (
            f"wrong: graphs holds {len(graphs)} entries after two calls with the same "
            "shape; Dynamo calls the backend once per graph it captures, and the "
            "second call reused the first graph."
        )
    if not isinstance(graphs[0], torch.fx.GraphModule):
        return f"wrong: graphs should hold the GraphModule, not {type(graphs[0])}"
    return "correct"


print(check_counting_backend())

# %% tags=["mistake"]
graphs = []


def counting_backend(gm, example_inputs):
    # Runs the graph once, on the example inputs, and hands Dynamo the result.
    graphs.append(gm)
    return gm(*example_inputs)

# %% [markdown]
# ## Exercise 2: a branch on a tensor's value {#a-branch-on-a-value}
#
# `clip_step` below branches on the sign of a tensor's sum. Dynamo cannot know at
# trace time which way the branch goes, so it ends the graph there, lets Python decide,
# and starts a new graph: a graph break, which `fullgraph=True` turns into an error.
# Rewrite `clip_step` so that it computes the same values for every input and compiles
# with `fullgraph=True`. The check counts the breaks with
# [`torch._dynamo.explain`](pytorch:torch/_dynamo/eval_frame.py#explain). See
# [Graph breaks, and explain](../compile.md#graph-breaks-and-explain).

# %% tags=["setup"]
def broken_clip_step(x):
    if x.sum() > 0:
        return x * 0.5
    return x - 1


explained = torch._dynamo.explain(broken_clip_step)(torch.ones(3))
print("graphs:", explained.graph_count, "breaks:", explained.graph_break_count)

# %% tags=["starter"] exercise="no-graph-break"
def clip_step(x):
    """x * 0.5 where x.sum() > 0, else x - 1; one graph, no break."""
    ...

# %% tags=["solution"]
def clip_step(x):
    """x * 0.5 where x.sum() > 0, else x - 1; one graph, no break."""
    return torch.where(x.sum() > 0, x * 0.5, x - 1)  # both sides computed, one chosen

# %% tags=["check"]
def check_no_graph_break():
    inputs = [torch.tensor([1.0, 2.0, -0.5]), torch.tensor([-3.0, 1.0, 0.5])]
    for x in inputs:
        if not torch.allclose(clip_step(x), broken_clip_step(x)):
            return (
                f"wrong: for {x.tolist()} clip_step gives {clip_step(x).tolist()}, "
                f"not {broken_clip_step(x).tolist()}: both signs of the sum must "
                "still give their own result."
            )
    explained = torch._dynamo.explain(clip_step)(inputs[0])
    if explained.graph_break_count:
        reason = str(explained.break_reasons[0].reason).splitlines()[0][:80]
        return (
            f"wrong: Dynamo still breaks the graph ({reason}). Reading a tensor's "
            "value into Python (if on a tensor, .item(), bool()) needs the data, which "
            "a traced tensor does not have: keep the choice inside the graph."
        )
    torch._dynamo.reset()
    full = torch.compile(clip_step, backend="eager", fullgraph=True)
    if not all(torch.allclose(full(x), broken_clip_step(x)) for x in inputs):
        return "wrong: with fullgraph=True the compiled clip_step gives other values"
    return "correct"


print(check_no_graph_break())

# %% tags=["mistake"]
def clip_step(x):
    # The branch still reads a value out of the graph.
    if x.sum().item() > 0:
        return x * 0.5
    return x - 1

# %% tags=["mistake"]
def clip_step(x):
    # No branch, no break: and the negative case is lost.
    return x * 0.5

# %% [markdown]
# ## Exercise 3: a guard on a Python number {#a-guard-on-a-number}
#
# Before a compiled graph runs again, its guards check that this call's inputs are like
# the ones it was traced with. A tensor's guard checks its dtype, device, shape and
# strides, not its values; a Python number is traced as a constant, so its guard checks
# its value, and the first new value compiles again. `step` gets a new learning rate
# on each call, as a schedule would. Complete `as_lr(lr)`, the value to pass to `step`
# for the rate `lr`, so that the whole schedule runs on one graph. The check counts
# graphs with your backend from exercise 1. See
# [Guards](../compile.md#guards-when-a-compiled-graph-may-be-reused), built by
# [`GuardBuilder`](pytorch:torch/_dynamo/guards.py#GuardBuilder).

# %% tags=["setup"]
def step(w, grad, lr):
    return w - lr * grad

# %% tags=["starter"] exercise="lr-guard"
def as_lr(lr):
    """What to pass to step for the learning rate lr, so that step compiles once."""
    ...

# %% tags=["solution"]
def as_lr(lr):
    """What to pass to step for the learning rate lr, so that step compiles once."""
    return torch.tensor(lr)  # a tensor input: its guard does not read its value

# %% tags=["check"]
def check_lr_guard():
    torch._dynamo.reset()
    graphs.clear()
    compiled_step = torch.compile(step, backend=counting_backend)
    w, grad = torch.ones(3), torch.tensor([1.0, 2.0, 3.0])
    for lr in [0.1, 0.05, 0.025, 0.0125]:
        got = compiled_step(w, grad, as_lr(lr))
        if not torch.allclose(got, w - lr * grad):
            return f"wrong: with lr={lr} step gave {got.tolist()}"
    if len(graphs) > 1:
        return (
            f"wrong: four learning rates compiled {len(graphs)} graphs, not one. A "
            "Python number is a constant in the graph and its guard checks its value: "
            "the first new value compiles again (then Dynamo may make it a symbol). "
            "A tensor's guard checks its dtype, device and shape, not its values."
        )
    return "correct"


print(check_lr_guard())

# %% tags=["mistake"]
def as_lr(lr):
    # A Python float, as a scheduler hands it out.
    return float(lr)

# %% [markdown]
# ## Exercise 4: the backward graph {#the-backward-graph}
#
# AOTAutograd traces the Dynamo graph down to ATen operators, derives the backward
# ahead of time and splits the joint graph into a forward and a backward graph, each
# passed to its own compiler by
# [`aot_autograd`](pytorch:torch/_dynamo/backends/common.py#aot_autograd). Complete
# `backward_ops(fn, x)` so that it returns the operators of the backward graph that
# compiling `fn` makes (as text, `traced_ops` gives them) when it is differentiated at
# `x`. The compilers must return a function that takes its inputs as one list:
# `make_boxed_func(gm.forward)`. See
# [AOTAutograd](../compile.md#aotautograd-forward-and-backward-graphs).

# %% tags=["starter"] exercise="backward-ops"
def backward_ops(fn, x):
    """The ATen operators of the backward graph AOTAutograd makes for fn at x."""
    ...

# %% tags=["solution"]
def backward_ops(fn, x):
    """The ATen operators of the backward graph AOTAutograd makes for fn at x."""
    found = []

    def forward_compiler(gm, example_inputs):
        return make_boxed_func(gm.forward)

    def backward_compiler(gm, example_inputs):
        found.extend(traced_ops(gm))
        return make_boxed_func(gm.forward)

    backend = aot_autograd(fw_compiler=forward_compiler, bw_compiler=backward_compiler)
    torch._dynamo.reset()
    x = x.detach().requires_grad_()
    torch.compile(fn, backend=backend)(x).sum().backward()  # compiles the backward
    return found

# %% tags=["check"]
def check_backward_ops():
    x = torch.linspace(-1.0, 1.0, 4)
    got = backward_ops(torch.sin, x)
    if not isinstance(got, list | tuple | set):
        return f"wrong: backward_ops should return the operators, not {got!r}"
    if not got:
        return (
            "wrong: no backward graph was seen. AOTAutograd compiles the backward "
            "graph when backward first runs, not when the forward does: call "
            "backward on the compiled function's result."
        )
    if "aten.sin.default" in got or "aten.cos.default" not in got:
        return (
            f"wrong: for sin you returned {sorted(got)}. The backward of sin "
            "multiplies the incoming gradient by cos(x): its graph calls aten.cos; "
            "aten.sin belongs to the forward graph."
        )
    got = backward_ops(lambda t: t * t, x)
    if "aten.cos.default" in got or "aten.mul.Tensor" not in got:
        return f"wrong: for t * t you returned {sorted(got)}, not a backward of mul"
    return "correct"


print(check_backward_ops())

# %% tags=["mistake"]
def backward_ops(fn, x):
    # Compiles and runs the forward only.
    found = []

    def backward_compiler(gm, example_inputs):
        found.extend(traced_ops(gm))
        return make_boxed_func(gm.forward)

    backend = aot_autograd(
        fw_compiler=lambda gm, _: make_boxed_func(gm.forward),
        bw_compiler=backward_compiler,
    )
    torch._dynamo.reset()
    torch.compile(fn, backend=backend)(x.detach().requires_grad_())
    return found

# %% tags=["mistake"]
def backward_ops(fn, x):
    # Reads the forward graph, where the operator itself is.
    found = []

    def forward_compiler(gm, example_inputs):
        found.extend(traced_ops(gm))
        return make_boxed_func(gm.forward)

    backend = aot_autograd(fw_compiler=forward_compiler)
    torch._dynamo.reset()
    x = x.detach().requires_grad_()
    torch.compile(fn, backend=backend)(x).sum().backward()
    return found
