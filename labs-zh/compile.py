# %% [markdown]
# # 编译栈动手练习：后端、图中断、守卫与反向图
# <!-- translates 54d1086a2761 -->
#
# 四道练习，配合[编译栈](../compile.md)一章，按一次编译调用遇到它们的顺序排列：
# Dynamo 把图交给的后端、让图中断的分支、让每次调用都重新编译的守卫，以及
# AOTAutograd 生成的反向图。每道练习有一个待补全的单元格（其中写着 `...`）、
# 一份参考答案（默认折叠：请先自己尝试），以及一个检查单元格：它输出 `correct`，
# 或者指出哪里错了、为什么错。检查的是机制，而不是某一个值：
# 只对最直观的情形成立的答案过不了检查。
#
# 练习方法：下载笔记本，补全一个单元格并运行，然后运行参考答案下方的检查单元格
# （不要运行参考答案本身，它会覆盖你的答案）。
# 笔记本中的每个单元格都由构建用页首注明的 torch 运行过。
# 这些练习都不需要 Inductor 或 C++ 编译器：所用的后端按捕获到的原样运行图。

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
# ## 练习 1：一个数图的后端 {#a-backend-that-counts}
# <!-- translates 02a2ba28d07c -->
#
# 后端是一个函数 `backend(gm, example_inputs)`：Dynamo 每捕获一个图就调用它一次，
# 传入作为 `GraphModule` 的图，以及每个输入各一个示例张量；它返回一个可调用对象，
# Dynamo 当时以及之后每次复用这个图时都运行它来代替图。补全 `counting_backend`，
# 让它把收到的每个图追加到 `graphs` 中，并原样运行图。后面的练习用它来统计编译次数。
# 参见[Dynamo 把一个帧捕获为 FX 图](../compile.md#dynamo-captures-a-frame-into-an-fx-graph)
# 以及 [`ConvertFrame`](pytorch:torch/_dynamo/convert_frame.py#ConvertFrame)。

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
# ## 练习 2：依据张量的值分支 {#a-branch-on-a-value}
# <!-- translates f817f25b8f30 -->
#
# 下面的 `clip_step` 依据一个张量之和的正负分支。Dynamo 在追踪时无法知道分支走向哪一边，
# 于是在那里结束这个图，让 Python 来决定，再开始一个新图：这就是图中断（graph break），
# 而 `fullgraph=True` 会把它变成一个错误。改写 `clip_step`，使它对每个输入都算出相同的值，
# 并且能在 `fullgraph=True` 下编译。检查单元格用
# [`torch._dynamo.explain`](pytorch:torch/_dynamo/eval_frame.py#explain) 统计中断次数。
# 参见[图中断与 explain](../compile.md#graph-breaks-and-explain)。

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
# ## 练习 3：Python 数字上的守卫 {#a-guard-on-a-number}
# <!-- translates 2fe00d929961 -->
#
# 已编译的图再次运行之前，它的守卫（guard）会检查本次调用的输入与追踪时的输入是否相符。
# 张量的守卫检查它的 dtype、设备、形状和步长，而不检查它的值；Python 数字则作为常量被追踪，
# 所以它的守卫检查它的值，第一次换成新值时就会重新编译。`step` 每次调用都得到一个新的学习率，
# 就像学习率调度器那样。补全 `as_lr(lr)`，即对学习率 `lr` 应传给 `step` 的值，
# 让整个调度只用一个图运行。检查单元格用你在练习 1 中写的后端统计图的个数。参见
# [守卫](../compile.md#guards-when-a-compiled-graph-may-be-reused)，守卫由
# [`GuardBuilder`](pytorch:torch/_dynamo/guards.py#GuardBuilder) 构建。

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
# ## 练习 4：反向图 {#the-backward-graph}
# <!-- translates 3192b3791a58 -->
#
# AOTAutograd 把 Dynamo 的图追踪到 ATen 算子这一层，预先推导出反向计算，
# 再把联合图拆分为前向图和反向图，由
# [`aot_autograd`](pytorch:torch/_dynamo/backends/common.py#aot_autograd)
# 分别交给各自的编译器。补全 `backward_ops(fn, x)`，让它返回编译 `fn`
# 并在 `x` 处求导时所生成的反向图中的算子（以文本形式，`traced_ops` 会给出它们）。
# 编译器必须返回一个以单个列表接收全部输入的函数：`make_boxed_func(gm.forward)`。
# 参见 [AOTAutograd](../compile.md#aotautograd-forward-and-backward-graphs)。

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
