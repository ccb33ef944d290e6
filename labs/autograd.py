# %% [markdown]
# # Autograd lab: graphs, saved tensors, custom functions and hooks
#
# Five exercises on the [Autograd](../autograd.md) chapter, in the order it builds
# them up: walking the graph a forward pass records, an in-place write that backward
# must not miss, a second derivative, a backward written by hand, and a hook that
# changes a gradient on its way. Each exercise has a cell to complete (it holds
# `...`), a worked solution (folded: try first), and a check that prints `correct`,
# or what is wrong and why. The checks test the mechanism, not one value: an answer
# that only fits the obvious case fails.
#
# To work through it, download the notebook, complete a cell, run it, and run the
# check below its solution (not the solution itself, which would replace your answer).
# Every cell of the notebook was run by the build with the torch named at its top.

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
# ## Exercise 1: the leaves a graph reaches {#the-leaves-a-graph-reaches}
#
# Each backward node, a [`Node`](pytorch:torch/csrc/autograd/node.h#Node), lists in
# `next_functions` the nodes that made its inputs, as `(node, input_nr)` pairs; an
# input that needed no gradient appears as `(None, 0)`. A leaf is reached through its
# `AccumulateGrad` node, whose `variable` is the leaf itself. Complete `leaves` so
# that it returns every leaf whose `.grad` a backward from `t` would write, each once,
# however deep in the graph it sits. See
# [The graph](../autograd.md#the-graph-grad_fn-next_functions-accumulategrad).

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
# ## Exercise 2: an in-place write after a save {#an-in-place-write-after-a-save}
#
# `sigmoid` saves its output for backward, and each saved tensor is kept in a
# [`SavedVariable`](pytorch:torch/csrc/autograd/saved_variable.h#SavedVariable) with
# the version its data had then. `doubled_sigmoid` below doubles the output in place,
# so backward finds a saved tensor whose version moved and refuses to run. Rewrite it
# so that it returns `2 * sigmoid(x)` and backward gives the right gradient. See
# [The version counter and the in-place error](../autograd.md#the-version-counter-and-the-in-place-error).

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
# ## Exercise 3: a second derivative {#a-second-derivative}
#
# [`torch.autograd.grad`](pytorch:torch/autograd/__init__.py#grad) returns a gradient
# as a tensor. To differentiate that gradient again, the backward pass itself must be
# recorded as a graph. Complete `second_derivative(f, t)` so that it returns, for an
# elementwise `f`, the second derivative of `f` at each element of `t`. See
# [Gradients of gradients](../autograd.md#gradients-of-gradients-create_graphtrue).

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
# ## Exercise 4: a backward written by hand {#a-backward-written-by-hand}
#
# A [`torch.autograd.Function`](pytorch:torch/autograd/function.py#Function) supplies
# its own backward: given the gradient of the loss with respect to its output, it
# returns the gradient with respect to each input (a vector-Jacobian product, not the
# Jacobian). Complete the backward of `SiLU`, `x * sigmoid(x)`, whose derivative is
# `s + x * s * (1 - s)` with `s = sigmoid(x)`. The check runs
# [`gradcheck`](pytorch:torch/autograd/gradcheck.py#gradcheck), which compares your
# backward with finite differences, in float64. See
# [A custom autograd.Function](../autograd.md#a-custom-autogradfunction-checked-with-gradcheck).

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
# ## Exercise 5: a hook that reverses a gradient {#a-hook-that-reverses-a-gradient}
#
# [`Tensor.register_hook`](pytorch:torch/_tensor.py#Tensor.register_hook) runs a
# function on the gradient of a tensor as backward computes it, before it flows on
# to the nodes behind. Complete `reverse_gradient(t, scale)` so that the forward
# values stay as they are, and every gradient that reaches `t` goes on multiplied by
# `-scale` (the gradient reversal layer of domain adaptation). See
# [Tensor hooks](../autograd.md#tensor-hooks-register_hook-and-register_post_accumulate_grad_hook).

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
