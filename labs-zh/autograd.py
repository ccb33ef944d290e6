# %% [markdown]
# # 自动微分动手练习：计算图、保存的张量、自定义函数与钩子
# <!-- translates 4ccf672cc892 -->
#
# 五道练习，配合[自动微分](../autograd.md)一章，按该章展开的顺序排列：
# 遍历前向传播记录下的计算图、反向传播不能漏掉的原地写入、二阶导数、
# 手写的反向函数，以及在梯度传递途中改变它的钩子。每道练习有一个待补全的单元格
# （其中写着 `...`）、一份参考答案（默认折叠：请先自己尝试），以及一个检查单元格：
# 它输出 `correct`，或者指出哪里错了、为什么错。检查的是机制，而不是某一个值：
# 只对最直观的情形成立的答案过不了检查。
#
# 练习方法：下载笔记本，补全一个单元格并运行，然后运行参考答案下方的检查单元格
# （不要运行参考答案本身，它会覆盖你的答案）。
# 笔记本中的每个单元格都由构建用页首注明的 torch 运行过。

# %% tags=["setup"]
import torch

torch.manual_seed(0)
x = torch.randn(3, 4, requires_grad=True)
w = torch.randn(4, 5, requires_grad=True)
b = torch.randn(5, requires_grad=True)
z = (x @ w + b).sum()
inputs = [node.name() for node, _ in z.grad_fn.next_functions]
print(z.grad_fn.name(), "->", inputs)

# %% [markdown]
# ## 练习 1：计算图能到达的叶子张量 {#the-leaves-a-graph-reaches}
# <!-- translates f0883a54516b -->
#
# 每个反向节点，即一个 [`Node`](pytorch:torch/csrc/autograd/node.h#Node)，
# 在 `next_functions` 中以 `(node, input_nr)` 对的形式列出产生其各个输入的节点；
# 不需要梯度的输入显示为 `(None, 0)`。叶子张量经由它的 `AccumulateGrad` 节点到达，
# 该节点的 `variable` 就是这个叶子张量本身。补全 `leaves`，让它返回从 `t`
# 开始的反向传播会写入 `.grad` 的每一个叶子张量，每个只出现一次，
# 无论它在计算图中有多深。参见
# [计算图](../autograd.md#the-graph-grad_fn-next_functions-accumulategrad)。

# %% tags=["starter"] exercise="leaves"
def leaves(t):
    """The leaf tensors that t.backward() would write a .grad to, each once."""
    ...

# %% tags=["solution"]
def leaves(t):
    """The leaf tensors that t.backward() would write a .grad to, each once."""
    found, seen, stack = [], set(), [t.grad_fn]
    while stack:
        node = stack.pop()
        if node is None or node in seen:
            continue
        seen.add(node)
        if hasattr(node, "variable"):  # an AccumulateGrad node
            found.append(node.variable)
        stack.extend(next_node for next_node, _ in node.next_functions)
    return found

# %% tags=["check"]
def check_leaves():
    a = torch.ones(2, requires_grad=True)
    c = torch.ones(2)  # needs no gradient: no node, no leaf
    cases = {
        "z = (x @ w + b).sum()": (z, [x, w, b]),
        "(a * a).exp().sum() * 2": ((a * a).exp().sum() * 2, [a]),
        "((a + c) * c).sum()": (((a + c) * c).sum(), [a]),
    }
    for name, (root, expected) in cases.items():
        got = leaves(root)
        if not isinstance(got, list | tuple):
            return f"wrong: leaves should return a list of tensors, not {got!r}"
        got_ids = [id(v) for v in got]
        if len(got_ids) != len(set(got_ids)):
            return (
                f"wrong: for {name} you returned a leaf twice. A leaf has one "
                "AccumulateGrad node however many times it is used: visit each "
                "node once."
            )
        if set(got_ids) != {id(v) for v in expected}:
            return (
                f"wrong: for {name} you returned {len(got)} tensors, but a backward "
                f"from it writes {len(expected)} leaves. Follow next_functions from "
                "every node, not only from t.grad_fn, and skip the None entries."
            )
    return "correct"


print(check_leaves())

# %% tags=["mistake"]
def leaves(t):
    # One step from t.grad_fn: right only for a leaf that feeds the last op.
    steps = t.grad_fn.next_functions
    return [node.variable for node, _ in steps if hasattr(node, "variable")]

# %% [markdown]
# ## 练习 2：保存之后的原地写入 {#an-in-place-write-after-a-save}
# <!-- translates 9657169678d6 -->
#
# `sigmoid` 为反向传播保存了它的输出，每个保存的张量都放在一个
# [`SavedVariable`](pytorch:torch/csrc/autograd/saved_variable.h#SavedVariable)
# 中，并记下其数据当时的版本。下面的 `doubled_sigmoid` 原地把输出乘以 2，
# 于是反向传播发现一个保存的张量版本变了，拒绝运行。改写它，使它返回
# `2 * sigmoid(x)`，并且反向传播给出正确的梯度。参见
# [版本计数器与原地操作错误](../autograd.md#the-version-counter-and-the-in-place-error)。

# %% tags=["setup"]
def broken_doubled_sigmoid(x):
    y = torch.sigmoid(x)
    y.mul_(2)  # writes into the tensor SigmoidBackward0 saved
    return y


try:
    broken_doubled_sigmoid(torch.zeros(3, requires_grad=True)).sum().backward()
except RuntimeError as error:
    print(str(error).split(": ")[0])

# %% tags=["starter"] exercise="doubled-sigmoid"
def doubled_sigmoid(x):
    """2 * sigmoid(x), with a backward that runs and is right."""
    ...

# %% tags=["solution"]
def doubled_sigmoid(x):
    """2 * sigmoid(x), with a backward that runs and is right."""
    return torch.sigmoid(x) * 2  # out of place: the saved output keeps its version

# %% tags=["check"]
def check_doubled_sigmoid():
    t = torch.linspace(-2.0, 2.0, 5, requires_grad=True)
    y = doubled_sigmoid(t)
    s = torch.sigmoid(t.detach())
    if not isinstance(y, torch.Tensor) or not torch.allclose(y.detach(), 2 * s):
        return f"wrong: doubled_sigmoid should return 2 * sigmoid(x), not {y}"
    try:
        y.sum().backward()
    except RuntimeError as error:
        if "modified by an inplace operation" not in str(error):
            raise
        return (
            "wrong: backward still finds the output SigmoidBackward0 saved at a newer "
            "version. Every in-place write to it is counted, under no_grad and through "
            "detach() alike (no_grad only stops recording; a detached tensor shares "
            "the version counter): write out of place, or into a clone."
        )
    if t.grad is None or not torch.allclose(t.grad, 2 * s * (1 - s)):
        got = None if t.grad is None else [round(g, 4) for g in t.grad.tolist()]
        return (
            f"wrong: backward ran but gave {got}, not 2 * s * (1 - s). A write "
            "through .data is not counted, so SigmoidBackward0 took the doubled "
            "output it had saved for sigmoid(x), and computed a wrong gradient."
        )
    return "correct"


print(check_doubled_sigmoid())

# %% tags=["mistake"]
def doubled_sigmoid(x):
    # The write hidden from autograd's recording, but not from the version counter.
    y = torch.sigmoid(x)
    with torch.no_grad():
        y.mul_(2)
    return y

# %% tags=["mistake"]
def doubled_sigmoid(x):
    # Through .data: no error, and a wrong gradient.
    y = torch.sigmoid(x)
    y.data.mul_(2)
    return y

# %% [markdown]
# ## 练习 3：二阶导数 {#a-second-derivative}
# <!-- translates 580e7458f8b7 -->
#
# [`torch.autograd.grad`](pytorch:torch/autograd/__init__.py#grad)
# 把梯度作为张量返回。要对这个梯度再求导，反向传播本身必须被记录成计算图。
# 补全 `second_derivative(f, t)`，对逐元素函数 `f`，返回 `f` 在 `t`
# 每个元素处的二阶导数。参见
# [梯度的梯度](../autograd.md#gradients-of-gradients-create_graphtrue)。

# %% tags=["starter"] exercise="second-derivative"
def second_derivative(f, t):
    """d2f/dt2 at each element of t, for an elementwise f."""
    ...

# %% tags=["solution"]
def second_derivative(f, t):
    """d2f/dt2 at each element of t, for an elementwise f."""
    t = t.detach().requires_grad_()
    (first,) = torch.autograd.grad(f(t).sum(), t, create_graph=True)
    (second,) = torch.autograd.grad(first.sum(), t)
    return second

# %% tags=["check"]
def check_second_derivative():
    t = torch.linspace(-1.0, 1.0, 5, dtype=torch.float64)
    cases = {
        "t ** 3": (lambda v: v**3, 6 * t),
        "sin(t)": (torch.sin, -torch.sin(t)),
        "t ** 2": (lambda v: v**2, torch.full_like(t, 2.0)),
    }
    for name, (f, expected) in cases.items():
        try:
            got = second_derivative(f, t)
        except RuntimeError as error:
            if "does not require grad" not in str(error):
                raise
            return (
                f"wrong: for f = {name} the second grad raised '{error}'. The first "
                "gradient was computed without recording a graph, so there is nothing "
                "to differentiate: retain_graph keeps the forward graph's saved "
                "tensors, create_graph=True records the backward pass itself."
            )
        if got is None or not torch.allclose(got, expected):
            return f"wrong: for f = {name} expected {expected.tolist()}, got {got}"
    return "correct"


print(check_second_derivative())

# %% tags=["mistake"]
def second_derivative(f, t):
    # retain_graph keeps the graph alive, but records nothing new.
    t = t.detach().requires_grad_()
    (first,) = torch.autograd.grad(f(t).sum(), t, retain_graph=True)
    (second,) = torch.autograd.grad(first.sum(), t)
    return second

# %% [markdown]
# ## 练习 4：手写的反向函数 {#a-backward-written-by-hand}
# <!-- translates 39256b193690 -->
#
# [`torch.autograd.Function`](pytorch:torch/autograd/function.py#Function)
# 自己提供反向函数：给定损失对其输出的梯度，它返回损失对每个输入的梯度
# （一个向量-雅可比积，而不是雅可比矩阵）。补全 `SiLU`（即 `x * sigmoid(x)`）
# 的反向函数，它的导数是 `s + x * s * (1 - s)`，其中 `s = sigmoid(x)`。
# 检查单元格运行 [`gradcheck`](pytorch:torch/autograd/gradcheck.py#gradcheck)，
# 它在 float64 下把你的反向函数与有限差分比较。参见
# [自定义 autograd.Function](../autograd.md#a-custom-autogradfunction-checked-with-gradcheck)。

# %% tags=["starter"] exercise="silu-backward"
class SiLU(torch.autograd.Function):
    @staticmethod
    def forward(x):
        return x * torch.sigmoid(x)

    @staticmethod
    def setup_context(ctx, inputs, output):
        (x,) = inputs
        ctx.save_for_backward(x)

    @staticmethod
    def backward(ctx, grad_output):
        ...

# %% tags=["solution"]
class SiLU(torch.autograd.Function):
    @staticmethod
    def forward(x):
        return x * torch.sigmoid(x)

    @staticmethod
    def setup_context(ctx, inputs, output):
        (x,) = inputs
        ctx.save_for_backward(x)

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        s = torch.sigmoid(x)
        return grad_output * (s + x * s * (1 - s))

# %% tags=["check"]
from torch.autograd import gradcheck


def check_silu_backward():
    torch.manual_seed(0)
    t = torch.randn(6, dtype=torch.float64, requires_grad=True)
    out = SiLU.apply(t)
    if not torch.allclose(out, torch.nn.functional.silu(t)):
        return "wrong: the forward changed; complete the backward only"
    if gradcheck(SiLU.apply, (t,), raise_exception=False):
        return "correct"
    (with_ones,) = torch.autograd.grad(SiLU.apply(t).sum(), t, allow_unused=True)
    (expected,) = torch.autograd.grad(torch.nn.functional.silu(t).sum(), t)
    if with_ones is None:
        return "wrong: backward returned None: it returns one gradient per input"
    if torch.allclose(with_ones, expected):
        return (
            "wrong: right only when the incoming gradient is all ones. gradcheck "
            "builds the Jacobian one incoming gradient at a time (one-hot vectors), "
            "and your backward ignores it: it must return grad_output times the "
            "derivative, a vector-Jacobian product."
        )
    return (
        "wrong: gradcheck's finite differences disagree with your backward: check "
        "the derivative, s + x * s * (1 - s)."
    )


print(check_silu_backward())

# %% tags=["mistake"]
class SiLU(torch.autograd.Function):
    @staticmethod
    def forward(x):
        return x * torch.sigmoid(x)

    @staticmethod
    def setup_context(ctx, inputs, output):
        (x,) = inputs
        ctx.save_for_backward(x)

    @staticmethod
    def backward(ctx, grad_output):
        # The derivative alone: the Jacobian's diagonal, not a product with it.
        (x,) = ctx.saved_tensors
        s = torch.sigmoid(x)
        return s + x * s * (1 - s)

# %% [markdown]
# ## 练习 5：反转梯度的钩子 {#a-hook-that-reverses-a-gradient}
# <!-- translates 48e25ee6a0a6 -->
#
# [`Tensor.register_hook`](pytorch:torch/_tensor.py#Tensor.register_hook)
# 在反向传播算出某个张量的梯度时，先对它运行一个函数，再让它流向后面的节点。
# 补全 `reverse_gradient(t, scale)`：前向的值保持不变，而每个到达 `t`
# 的梯度在继续传递时都乘以 `-scale`（领域自适应中的梯度反转层）。参见
# [张量钩子](../autograd.md#tensor-hooks-register_hook-and-register_post_accumulate_grad_hook)。

# %% tags=["starter"] exercise="reverse-gradient"
def reverse_gradient(t, scale):
    """Make every gradient that reaches t flow on multiplied by -scale."""
    ...

# %% tags=["solution"]
def reverse_gradient(t, scale):
    """Make every gradient that reaches t flow on multiplied by -scale."""
    t.register_hook(lambda grad: grad * -scale)

# %% tags=["check"]
def check_reverse_gradient():
    a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    h = a * 2
    reverse_gradient(h, 0.5)
    (h * torch.tensor([1.0, 10.0, 100.0])).sum().backward()
    if a.grad is None:
        return "wrong: no gradient reached a"
    expected = [-1.0, -10.0, -100.0]  # 2 (from a * 2) times -0.5 times the weights
    if a.grad.tolist() == [2.0, 20.0, 200.0]:
        return (
            "wrong: the gradient went on unchanged. A tensor hook's return value "
            "replaces the gradient; a hook that returns None leaves it as it was."
        )
    if a.grad.tolist() != expected:
        return f"wrong: a.grad should be {expected}, not {a.grad.tolist()}"
    return "correct"


print(check_reverse_gradient())

# %% tags=["mistake"]
def reverse_gradient(t, scale):
    def hook(grad):
        grad = grad * -scale  # a new tensor, bound to a local name and dropped

    t.register_hook(hook)
