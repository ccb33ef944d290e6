# %% [markdown]
# # Custom operators lab: fake kernels, gradients and opcheck
#
# Four exercises on the [Custom operators and extensions](../custom-ops.md) chapter, in
# the order a reader registers the pieces of an operator: the fake kernel that
# describes its output without data, the backward formula that autograd cannot derive
# from NumPy, the declaration of an input the kernel writes, and the samples that let
# `opcheck` test all of it. Each exercise has a cell to complete (it holds `...`), a
# worked solution (folded: try first), and a check that prints `correct`, or what is
# wrong and why. The checks test the mechanism, not one value: an answer that only
# fits the obvious case fails.
#
# To work through it, download the notebook, complete a cell, run it, and run the
# check below its solution (not the solution itself, which would replace your answer).
# Every cell of the notebook was run by the build with the torch named at its top.
# Defining an operator again under the same name replaces it, so you can rerun a cell.

# %% tags=["setup"]
import numpy as np
import torch

torch.manual_seed(0)


# An operator whose kernel PyTorch cannot look into: NumPy computes each row's length.
@torch.library.custom_op("lab::row_norms", mutates_args=())
def row_norms(x: torch.Tensor) -> torch.Tensor:
    return torch.from_numpy(np.linalg.norm(x.numpy(force=True), axis=1))


print(torch.ops.lab.row_norms.default._schema)
print(row_norms(torch.tensor([[3.0, 4.0], [6.0, 8.0]])))

# %% tags=["setup"]
# Exercise 4's operators, which double a tensor through NumPy: one right, two flawed.
def doubled(x):
    return torch.from_numpy(x.numpy(force=True) * 2)


@torch.library.custom_op("lab::twice", mutates_args=())
def twice(x: torch.Tensor) -> torch.Tensor:
    return doubled(x)


@torch.library.custom_op("lab::twice_f32", mutates_args=())
def twice_f32(x: torch.Tensor) -> torch.Tensor:
    return doubled(x.float())


@torch.library.custom_op("lab::twice_nograd", mutates_args=())
def twice_nograd(x: torch.Tensor) -> torch.Tensor:
    return doubled(x)


for op in (twice, twice_f32, twice_nograd):
    op.register_fake(torch.empty_like)
for op in (twice, twice_f32):
    op.register_autograd(lambda ctx, grad: grad * 2)

# %% [markdown]
# ## Exercise 1: a fake kernel {#a-fake-kernel}
#
# Meta tensors, `torch.compile` and `torch.export` never run the NumPy kernel: they
# run the operator on tensors that have a shape, a dtype and a device but no data, and
# need a function that computes only the output's metadata. Register one for
# `row_norms` with [`register_fake`](pytorch:torch/library.py#register_fake). The
# check compares it with the real kernel on inputs of several shapes and dtypes, the
# fake one on the `meta` device.

# %% tags=["starter"] exercise="fake-kernel"
@row_norms.register_fake
def _(x):
    """The tensor row_norms(x) returns, described without reading x's values."""
    ...

# %% tags=["solution"]
@row_norms.register_fake
def _(x):
    """The tensor row_norms(x) returns, described without reading x's values."""
    return x.new_empty(x.shape[0])  # one norm per row, x's dtype and device

# %% tags=["check"]
def check_fake_kernel():
    inputs = [torch.randn(2, 3), torch.randn(5, 1).double(), torch.randn(0, 4)]
    for x in inputs:
        real = row_norms(x)
        kind = f"a {tuple(x.shape)} {str(x.dtype).removeprefix('torch.')} input"
        try:
            fake = row_norms(x.to("meta"))
        except Exception as error:
            return (
                f"wrong: for {kind} on the meta device your fake raised "
                f"{type(error).__name__}: {str(error).splitlines()[0][:160]}. A fake "
                "gets tensors without data: build its result from x's metadata alone."
            )
        if not isinstance(fake, torch.Tensor):
            return f"wrong: your fake returned {fake!r}, not a tensor describing one"
        want = (tuple(real.shape), real.dtype, torch.device("meta"))
        got = (tuple(fake.shape), fake.dtype, fake.device)
        if got != want:
            return (
                f"wrong: for {kind} the kernel returns shape {want[0]}, {want[1]}, and "
                f"on the meta device it must say so; your fake says shape {got[0]}, "
                f"{got[1]}, on {got[2]}. A fake describes the kernel's output: one "
                "norm per row, in the input's dtype, on the input's device."
            )
    return "correct"


print(check_fake_kernel())

# %% tags=["mistake"]
@row_norms.register_fake
def _(x):
    # The usual copy from an elementwise op: the input's shape, not the output's.
    return torch.empty_like(x)

# %% tags=["mistake"]
@row_norms.register_fake
def _(x):
    # The right shape, from a factory that does not look at x's dtype or device.
    return torch.empty(x.shape[0])

# %% [markdown]
# ## Exercise 2: a gradient autograd cannot derive {#a-gradient}
#
# Autograd cannot see into NumPy, so `row_norms` needs a backward formula, registered
# with [`register_autograd`](pytorch:torch/library.py#register_autograd):
# `setup_context` saves what the backward needs after the forward, and `backward`
# receives `grad`, the gradient of the loss with respect to each row's norm, and
# returns the gradient with respect to `x`. The derivative of a row's norm is the row
# divided by its norm. The check runs
# [`gradcheck`](pytorch:torch/autograd/gradcheck.py#gradcheck), which compares your
# formula with finite differences in float64.

# %% tags=["starter"] exercise="row-norms-backward"
def setup_context(ctx, inputs, output):
    ...


def backward(ctx, grad):
    ...


row_norms.register_autograd(backward, setup_context=setup_context)

# %% tags=["solution"]
def setup_context(ctx, inputs, output):
    (x,) = inputs
    ctx.save_for_backward(x, output)


def backward(ctx, grad):
    x, norms = ctx.saved_tensors
    return grad[:, None] * x / norms[:, None]


row_norms.register_autograd(backward, setup_context=setup_context)

# %% tags=["check"]
def check_row_norms_backward():
    x = torch.randn(3, 4, dtype=torch.float64, requires_grad=True)
    try:
        agrees = torch.autograd.gradcheck(row_norms, (x,), raise_exception=False)
    except Exception as error:
        return (
            f"wrong: gradcheck could not run your backward: {type(error).__name__}: "
            f"{str(error).splitlines()[0][:200]}"
        )
    if agrees:
        return "correct"
    (from_sum,) = torch.autograd.grad(row_norms(x).sum(), x, allow_unused=True)
    if from_sum is None:
        return "wrong: your backward returned None, not the gradient with respect to x"
    if torch.allclose(from_sum, x / x.norm(dim=1, keepdim=True)):
        return (
            "wrong: for the loss row_norms(x).sum() your gradient is right, but "
            "gradcheck, which gives each norm a gradient of its own, disagrees: "
            "backward must multiply by grad, the gradient arriving for each row's "
            "norm (the chain rule), not assume it is 1."
        )
    return (
        "wrong: gradcheck's finite differences disagree with your backward: the "
        "gradient of row i is grad[i] * x[i] / norm(x[i])."
    )


print(check_row_norms_backward())

# %% tags=["mistake"]
def setup_context(ctx, inputs, output):
    (x,) = inputs
    ctx.save_for_backward(x, output)


def backward(ctx, grad):
    # The derivative alone: right only when every norm's gradient is 1.
    x, norms = ctx.saved_tensors
    return x / norms[:, None]


row_norms.register_autograd(backward, setup_context=setup_context)

# %% [markdown]
# ## Exercise 3: a write the schema declares {#a-declared-write}
#
# Write `clamp_`, an operator that clamps `x` into `[lo, hi]` in place with NumPy:
# `x.numpy()` shares the tensor's memory, and `np.clip(a, lo, hi, out=a)` writes into
# it. Every operator's schema says which inputs it writes (`Tensor(a!)`), and
# [`custom_op`](pytorch:torch/_library/custom_ops.py#custom_op) builds it from
# `mutates_args`. PyTorch relies on it: a declared write bumps the input's
# version counter, so autograd can refuse a saved tensor that changed. Complete the
# kernel and its declaration. The check clamps a tensor that autograd saved, and runs
# [`opcheck`](pytorch:torch/library.py#opcheck), whose `test_schema` watches the
# kernel under
# [`SchemaCheckMode`](pytorch:torch/_subclasses/schema_check_mode.py#SchemaCheckMode).

# %% tags=["starter"] exercise="declared-write"
@torch.library.custom_op("lab::clamp_", mutates_args=())  # which inputs does it write?
def clamp_(x: torch.Tensor, lo: float, hi: float) -> None:
    """Clamp x into [lo, hi] in place, through NumPy."""
    ...

# %% tags=["solution"]
@torch.library.custom_op("lab::clamp_", mutates_args={"x"})
def clamp_(x: torch.Tensor, lo: float, hi: float) -> None:
    """Clamp x into [lo, hi] in place, through NumPy."""
    a = x.numpy()
    np.clip(a, lo, hi, out=a)

# %% tags=["check"]
def check_declared_write():
    w = torch.ones(3, requires_grad=True)
    h = torch.tensor([-2.0, 0.5, 3.0])
    loss = (w * h).sum()  # mul saves h: the gradient of w is h as it was here
    clamp_(h, -1.0, 1.0)
    if h.tolist() != [-1.0, 0.5, 1.0]:
        return f"wrong: after clamp_(h, -1.0, 1.0), h is {h.tolist()}, not [-1, 0.5, 1]"
    schema = torch.ops.lab.clamp_.default._schema
    try:
        loss.backward()
    except RuntimeError as error:
        if "modified by an inplace operation" not in str(error):
            raise
    else:
        return (
            f"wrong: the schema {schema} does not say that x is written, so h's "
            f"version stayed at {h._version} and backward used the clamped h: w.grad "
            f"is {w.grad.tolist()}, not [-2.0, 0.5, 3.0]. mutates_args names every "
            "input the kernel writes."
        )
    try:
        torch.library.opcheck(clamp_, (torch.randn(4), -0.5, 0.5))
    except Exception as error:
        return f"wrong: opcheck: {str(error).splitlines()[0]}"
    return "correct"


print(check_declared_write())

# %% tags=["mistake"]
# It returns nothing, so it looks like it changes nothing.
@torch.library.custom_op("lab::clamp_", mutates_args=())
def clamp_(x: torch.Tensor, lo: float, hi: float) -> None:
    """Clamp x into [lo, hi] in place, through NumPy."""
    a = x.numpy()
    np.clip(a, lo, hi, out=a)

# %% tags=["mistake"]
@torch.library.custom_op("lab::clamp_", mutates_args={"x"})
def clamp_(x: torch.Tensor, lo: float, hi: float) -> None:
    """Clamp x into [lo, hi] in place, through NumPy."""
    # np.clip without out= returns a new array: the name x now points at the copy.
    x = torch.from_numpy(np.clip(x.numpy(), lo, hi))

# %% [markdown]
# ## Exercise 4: samples that reach the bug {#samples-that-reach-the-bug}
#
# [`opcheck`](pytorch:torch/library.py#opcheck) tests an operator only on the inputs
# you give it. The lab's second setup cell made three operators that double a
# tensor through NumPy: `twice` is right; `twice_f32`'s kernel always returns
# float32 while its fake says the input's dtype; `twice_nograd` has no backward.
# Write `samples`, a list of argument tuples, such that `opcheck` passes `twice` on
# every sample and fails each of the other two on at least one.

# %% tags=["starter"] exercise="opcheck-samples"
samples = [
    ...
]

# %% tags=["solution"]
samples = [
    (torch.randn(3),),
    (torch.randn(2, 5, dtype=torch.float64),),  # reaches twice_f32's kernel
    (torch.randn(4, requires_grad=True),),  # reaches the backward
]

# %% tags=["check"]
def check_opcheck_samples():
    def first_failure(op):
        for args in samples:
            try:
                torch.library.opcheck(op, args)
            except Exception as error:
                return str(error).splitlines()[0]
        return None

    if not samples or not all(isinstance(args, tuple) for args in samples):
        return f"wrong: samples is a list of argument tuples, (torch.randn(3),) say"
    failure = first_failure(twice)
    if failure:
        return f"wrong: opcheck fails the correct twice on your samples: {failure}"
    if first_failure(twice_f32) is None:
        dtypes = sorted({str(getattr(a, "dtype", a)) for args in samples for a in args})
        return (
            f"wrong: opcheck passes twice_f32, whose kernel returns float32 whatever "
            f"it gets: your samples' dtypes are {dtypes}, and on float32 its fake is "
            "right. opcheck's test_faketensor compares only the inputs you give it."
        )
    if first_failure(twice_nograd) is None:
        return (
            "wrong: opcheck passes twice_nograd, which has no backward: no sample "
            "requires grad, so no test ran a backward. Add a sample with "
            "requires_grad=True."
        )
    return "correct"


print(check_opcheck_samples())

# %% tags=["mistake"]
samples = [
    # Several shapes, but every sample float32 and none requiring grad.
    (torch.randn(3),),
    (torch.randn(2, 5),),
    (torch.randn(4, 1, 2),),
]

# %% tags=["mistake"]
samples = [
    (torch.randn(3),),
    (torch.randn(2, 5, dtype=torch.float64),),
]
