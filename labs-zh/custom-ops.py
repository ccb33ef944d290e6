# %% [markdown]
# # 自定义算子动手练习：伪内核、梯度与 opcheck
# <!-- translates 0b5d50e011e3 -->
#
# 四道练习，配合[自定义算子与扩展](../custom-ops.md)一章，按注册一个算子各部分的顺序排列：
# 不读数据、只描述输出的伪内核；自动微分无法从 NumPy 推导出来的反向公式；
# 对内核会写入的输入的声明；以及让 `opcheck` 把这一切都测试到的样例输入。
# 每道练习有一个待补全的单元格（其中写着 `...`）、一份参考答案（默认折叠：请先自己尝试），
# 以及一个检查单元格：它输出 `correct`，或者指出哪里错了、为什么错。
# 检查的是机制，而不是某一个值：只对最直观的情形成立的答案过不了检查。
#
# 练习方法：下载笔记本，补全一个单元格并运行，然后运行参考答案下方的检查单元格
# （不要运行参考答案本身，它会覆盖你的答案）。
# 笔记本中的每个单元格都由构建用页首注明的 torch 运行过。
# 用同一个名字再次定义算子会替换掉原来的算子，所以单元格可以反复运行。

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
# ## 练习 1：伪内核 {#a-fake-kernel}
# <!-- translates 007bd87f25e0 -->
#
# meta 张量、`torch.compile` 和 `torch.export` 从不运行 NumPy 内核：它们在只有形状、
# 数据类型和设备而没有数据的张量上运行算子，因此需要一个只计算输出元数据的函数。
# 用 [`register_fake`](pytorch:torch/library.py#register_fake) 为 `row_norms`
# 注册这样一个函数。检查单元格在几种形状和数据类型的输入上把它和真实内核作比较，
# 伪内核一方运行在 `meta` 设备上。

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
# ## 练习 2：自动微分推导不出的梯度 {#a-gradient}
# <!-- translates 797dd478f961 -->
#
# 自动微分看不到 NumPy 内部，所以 `row_norms` 需要一个反向公式，用
# [`register_autograd`](pytorch:torch/library.py#register_autograd) 注册：
# `setup_context` 在前向之后保存反向需要的东西；`backward` 接收 `grad`，
# 即损失对每一行范数的梯度，返回对 `x` 的梯度。一行的范数对该行的导数是这一行除以它的范数。
# 检查单元格运行 [`gradcheck`](pytorch:torch/autograd/gradcheck.py#gradcheck)，
# 它在 float64 下把你的公式和有限差分作比较。

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
# ## 练习 3：签名声明的写入 {#a-declared-write}
# <!-- translates 8de6ffb54481 -->
#
# 写一个算子 `clamp_`，用 NumPy 把 `x` 原地截断到 `[lo, hi]` 之内：
# `x.numpy()` 与张量共享内存，`np.clip(a, lo, hi, out=a)` 直接写入这块内存。
# 每个算子的签名都说明它会写入哪些输入（`Tensor(a!)`），
# [`custom_op`](pytorch:torch/_library/custom_ops.py#custom_op) 根据 `mutates_args`
# 生成这一部分。PyTorch 依赖这个声明：声明过的写入会增加该输入的版本计数，
# 自动微分才能拒绝一个保存后又被改过的张量。补全内核和它的声明。
# 检查单元格截断一个被自动微分保存了的张量，并运行
# [`opcheck`](pytorch:torch/library.py#opcheck)，其中的 `test_schema` 在
# [`SchemaCheckMode`](pytorch:torch/_subclasses/schema_check_mode.py#SchemaCheckMode)
# 下监视内核。

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
# ## 练习 4：触及缺陷的样例 {#samples-that-reach-the-bug}
# <!-- translates 94423a3678c1 -->
#
# [`opcheck`](pytorch:torch/library.py#opcheck) 只在你给它的输入上测试算子。
# 本页的第二个 setup 单元格定义了三个通过 NumPy 把张量乘以 2 的算子：`twice` 是对的；
# `twice_f32` 的内核总是返回 float32，而它的伪实现声称输出与输入的数据类型相同；
# `twice_nograd` 没有反向公式。写出 `samples`，一个由参数元组组成的列表，
# 使 `opcheck` 在每个样例上都让 `twice` 通过，并让另外两个算子各自至少在一个样例上失败。

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
