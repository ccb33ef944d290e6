# %% [markdown]
# # 分发动手练习：分发键、线程局部状态、模式与新算子
# <!-- translates ea47c8089710 -->
#
# 五道练习，配合[算子分发](../dispatch.md)一章，按读者接触这些概念的顺序排列：
# 张量带有哪些分发键、线程的状态如何改变一次调用据以分发的键、哪个内核最先运行、
# `TorchDispatchMode` 看到的是什么，以及你自己的算子如何为每个后端键得到一个内核。
# 每道练习有一个待补全的单元格（其中写着 `...`）、
# 一份参考答案（默认折叠：请先自己尝试），以及一个检查单元格：它输出 `correct`，
# 或者指出哪里错了、为什么错。检查的是机制，而不是某一个值：
# 只对最直观的情形成立的答案过不了检查。
#
# 练习方法：下载笔记本，补全一个单元格并运行，然后运行参考答案下方的检查单元格
# （不要运行参考答案本身，它会覆盖你的答案）。
# 笔记本中的每个单元格都由构建用页首注明的 torch 运行过。

# %% tags=["setup"]
import torch

DK = torch._C.DispatchKey


def table_rows(op):
    """The rows of op's computed dispatch table: {key name: what is registered}."""
    rows = {}
    for line in torch._C._dispatch_dump_table(op).splitlines():
        key, _, row = line.partition(": ")
        rows[key] = row
    return rows


print(torch._C._dispatch_keys(torch.ones(3)))
print("add's AutocastCPU row:", table_rows("aten::add.Tensor")["AutocastCPU"][:11])

# %% [markdown]
# ## 练习 1：自动微分键不是 `requires_grad` {#the-autograd-key}
# <!-- translates 62866f2e639f -->
#
# 每个张量都带有一个 [`DispatchKeySet`](pytorch:c10/core/DispatchKeySet.h#DispatchKeySet)，
# 在张量创建时就已确定；`torch._C._dispatch_keys(t)` 返回它，它的 `has(key)`
# 判断某个键是否在其中。补全 `has_autograd_key(t)`：当对 `t` 的调用可以经过
# 自动微分内核时返回 `True`，无论 `t` 在什么设备上。`DK.AutogradFunctionality`
# 是不带后端的自动微分位。想一想哪些张量带有它：不需要梯度的张量、meta 张量、
# 在 [`InferenceMode`](pytorch:c10/core/InferenceMode.h#InferenceMode) 下创建的张量。

# %% tags=["starter"] exercise="has-autograd-key"
def has_autograd_key(t):
    """Whether t's own dispatch key set holds an autograd key."""
    ...

# %% tags=["solution"]
def has_autograd_key(t):
    """Whether t's own dispatch key set holds an autograd key."""
    return torch._C._dispatch_keys(t).has(DK.AutogradFunctionality)

# %% tags=["check"]
def check_has_autograd_key():
    with torch.no_grad():
        made_under_no_grad = torch.ones(3)
    with torch.inference_mode():
        inference_tensor = torch.ones(3)
    cases = [
        ("a plain float tensor", torch.ones(3), True),
        ("an int64 tensor", torch.ones(3, dtype=torch.int64), True),
        ("a tensor that requires grad", torch.ones(3, requires_grad=True), True),
        ("a tensor made under no_grad", made_under_no_grad, True),
        ("a meta tensor", torch.ones(3, device="meta"), True),
        ("a tensor made under inference_mode", inference_tensor, False),
    ]
    for name, t, expected in cases:
        got = has_autograd_key(t)
        if got != expected:
            return (
                f"wrong: for {name} you said {got}, but its keys are "
                f"{torch._C._dispatch_keys(t)}. The autograd key is on every tensor "
                "except inference tensors, whatever requires_grad says (the autograd "
                "kernel reads the flag and records nothing), and each backend has its "
                "own: AutogradCPU, AutogradMeta, ..."
            )
    return "correct"


print(check_has_autograd_key())

# %% tags=["mistake"]
def has_autograd_key(t):
    # The flag, not the key set.
    return t.requires_grad

# %% tags=["mistake"]
def has_autograd_key(t):
    # The CPU key only, found in the printed set.
    return "AutogradCPU" in str(torch._C._dispatch_keys(t))

# %% [markdown]
# ## 练习 2：一次调用据以分发的键 {#the-keys-a-call-dispatches-on}
# <!-- translates e3132f7204b8 -->
#
# 一次调用并不只依据某一个张量的键来分发：
# [`DispatchKeyExtractor`](pytorch:aten/src/ATen/core/dispatch/DispatchKeyExtractor.h#DispatchKeyExtractor)
# 取所有张量参数的键集合的并集，加上线程的包含集合，再去掉线程的排除集合
# （[`LocalDispatchKeySet`](pytorch:c10/core/impl/LocalDispatchKeySet.h#LocalDispatchKeySet)）。
# 线程的这两个集合是 `torch._C._dispatch_tls_local_include_set()` 和
# `torch._C._dispatch_tls_local_exclude_set()`；键集合之间可以用 `|` 和 `-` 组合。
# 补全 `call_keys(*tensors)`，让它返回此刻对这些张量的一次调用据以分发的集合
# （在跳过算子自己的 fallthrough 之前）。

# %% tags=["starter"] exercise="call-keys"
def call_keys(*tensors):
    """The DispatchKeySet a call on these tensors dispatches on in this thread now."""
    ...

# %% tags=["solution"]
def call_keys(*tensors):
    """The DispatchKeySet a call on these tensors dispatches on in this thread now."""
    keys = torch._C._dispatch_keys(tensors[0])
    for t in tensors[1:]:
        keys = keys | torch._C._dispatch_keys(t)
    included = torch._C._dispatch_tls_local_include_set()
    excluded = torch._C._dispatch_tls_local_exclude_set()
    return (keys | included) - excluded

# %% tags=["check"]
from contextlib import nullcontext

from torch.utils._python_dispatch import TorchDispatchMode


class PassThrough(TorchDispatchMode):
    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        return func(*args, **(kwargs or {}))


def check_call_keys():
    plain = torch.ones(3)
    with torch.inference_mode():
        inference_tensor = torch.ones(3)
    autocast = lambda: torch.autocast("cpu", dtype=torch.bfloat16)  # noqa: E731
    cases = [
        ("in grad mode", nullcontext, (plain,), DK.AutogradCPU, True,
         "every ordinary CPU tensor carries AutogradCPU"),
        ("in grad mode", nullcontext, (plain,), DK.AutocastCPU, False,
         "the tensor carries AutocastCPU, but the thread excludes it outside autocast"),
        ("under autocast", autocast, (plain,), DK.AutocastCPU, True,
         "autocast takes AutocastCPU out of the thread's excluded set"),
        ("under no_grad", torch.no_grad, (plain,), DK.AutogradCPU, True,
         "no_grad changes no key: the autograd kernel runs and records nothing"),
        ("under inference_mode", torch.inference_mode, (plain,), DK.AutogradCPU,
         False, "inference_mode puts the autograd keys in the excluded set"),
        ("under a TorchDispatchMode", PassThrough, (plain,), DK.Python, True,
         "a dispatch mode puts Python in the thread's included set"),
        ("in grad mode, (inference tensor, plain)", nullcontext,
         (inference_tensor, plain), DK.AutogradCPU, True,
         "a call unites the key sets of all its tensor arguments"),
    ]
    for where, guard, args, key, expected, why in cases:
        with guard():
            got = call_keys(*args)
        if got.has(key) != expected:
            yours = "has" if got.has(key) else "lacks"
            call = "reaches" if expected else "skips"
            return (
                f"wrong: {where}, your set {yours} {key.name}, but a call {call} it: "
                f"{why}. You returned {got}."
            )
    return "correct"


print(check_call_keys())

# %% tags=["mistake"]
def call_keys(*tensors):
    # The tensors' own keys: the thread's state left out.
    keys = torch._C._dispatch_keys(tensors[0])
    for t in tensors[1:]:
        keys = keys | torch._C._dispatch_keys(t)
    return keys

# %% tags=["mistake"]
def call_keys(*tensors):
    # The excluded set applied, the included set forgotten.
    keys = torch._C._dispatch_keys(tensors[0])
    for t in tensors[1:]:
        keys = keys | torch._C._dispatch_keys(t)
    return keys - torch._C._dispatch_tls_local_exclude_set()

# %% tags=["mistake"]
def call_keys(*tensors):
    # The first tensor's keys with the thread's state: the others ignored.
    included = torch._C._dispatch_tls_local_include_set()
    excluded = torch._C._dispatch_tls_local_exclude_set()
    return (torch._C._dispatch_keys(tensors[0]) | included) - excluded

# %% [markdown]
# ## 练习 3：最先运行的内核 {#the-first-kernel-that-runs}
# <!-- translates 3b0415655148 -->
#
# 分发器取调用的键集合中优先级最高的键
# （[`DispatchKeySet::highestPriorityTypeId`](pytorch:c10/core/DispatchKeySet.h#DispatchKeySet::highestPriorityTypeId)），
# 运行算子分发表中该键那一行的内核；如果那一行是 `fallthrough`，就跳过这个键，尝试下一个。
# 初始化单元格中的 `table_rows(op)` 读取计算后的分发表
# （[`OperatorEntry.cpp`](pytorch:aten/src/ATen/core/dispatch/OperatorEntry.cpp)），
# 以 `fallthrough` 开头的行会被跳过，`keys.remove(key)` 返回去掉某个键后的集合。
# 补全 `first_kernel(op, *tensors)`，让它返回此刻对这些张量调用 `op`
# （例如 `"aten::add.Tensor"`）时最先运行的内核所在的 `DispatchKey`；
# 请使用你在练习 2 中写的 `call_keys`。

# %% tags=["starter"] exercise="first-kernel"
def first_kernel(op, *tensors):
    """The DispatchKey whose kernel runs first for op on these tensors now."""
    ...

# %% tags=["solution"]
def first_kernel(op, *tensors):
    """The DispatchKey whose kernel runs first for op on these tensors now."""
    rows = table_rows(op)
    keys = call_keys(*tensors)
    while True:
        key = keys.highestPriorityTypeId()
        if not rows.get(key.name, "").startswith("fallthrough"):
            return key
        keys = keys.remove(key)

# %% tags=["check"]
def check_first_kernel():
    a = torch.ones(2, 2)
    meta = torch.ones(2, 2, device="meta")
    autocast = lambda: torch.autocast("cpu", dtype=torch.bfloat16)  # noqa: E731
    cases = [
        ("add on CPU tensors", nullcontext, "aten::add.Tensor", a, DK.AutogradCPU,
         "the thread excludes AutocastCPU outside autocast"),
        ("mm on CPU tensors", nullcontext, "aten::mm", a, DK.AutogradCPU,
         "mm has an AutocastCPU kernel, but the thread excludes the key"),
        ("mm under autocast", autocast, "aten::mm", a, DK.AutocastCPU,
         "mm's AutocastCPU row is a kernel that casts its inputs"),
        ("add under autocast", autocast, "aten::add.Tensor", a, DK.AutogradCPU,
         "add's AutocastCPU row is a fallthrough: the key is skipped"),
        ("add under inference_mode", torch.inference_mode, "aten::add.Tensor", a,
         DK.CPU, "the autograd keys are excluded, and ADInplaceOrView and "
         "BackendSelect are fallthroughs for add"),
        ("add on meta tensors", nullcontext, "aten::add.Tensor", meta,
         DK.AutogradMeta, "a meta tensor's autograd key is AutogradMeta"),
    ]
    for where, guard, op, t, expected, why in cases:
        with guard():
            got = first_kernel(op, t, t)
        if got != expected:
            return (
                f"wrong: for {where} you said {getattr(got, 'name', got)}, but the "
                "first kernel is at "
                f"{expected.name}: {why}."
            )
    return "correct"


print(check_first_kernel())

# %% tags=["mistake"]
def first_kernel(op, *tensors):
    # The highest key of the call's set: the operator's fallthroughs not skipped.
    return call_keys(*tensors).highestPriorityTypeId()

# %% tags=["mistake"]
def first_kernel(op, *tensors):
    # Fallthroughs skipped, but from the tensors' own keys: the thread's state ignored.
    rows = table_rows(op)
    keys = torch._C._dispatch_keys(tensors[0])
    while True:
        key = keys.highestPriorityTypeId()
        if not rows.get(key.name, "").startswith("fallthrough"):
            return key
        keys = keys.remove(key)

# %% [markdown]
# ## 练习 4：自动微分之下的算子 {#the-operators-below-autograd}
# <!-- translates fcc0c9e9e1db -->
#
# [`TorchDispatchMode`](pytorch:torch/utils/_python_dispatch.py#TorchDispatchMode)
# 在 `Python` 键上被调用，位于 `Autograd` 之下：它看到的是到达内核的 aten 算子，
# 此时 `linear` 这类组合算子已经被自动微分那一行的数学内核分解了。
# 补全 `aten_ops(fn)`，让它运行 `fn()`，返回其结果以及这次调用到达的 aten 算子列表，
# 每个算子的名字按 `str(func)` 的写法（`'aten.addmm.default'`）。

# %% tags=["starter"] exercise="aten-ops"
def aten_ops(fn):
    """Run fn(); return (its result, the aten operators it reached, in order)."""
    ...

# %% tags=["solution"]
class RecordAten(TorchDispatchMode):
    def __init__(self):
        super().__init__()
        self.names = []

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        self.names.append(str(func))
        return func(*args, **(kwargs or {}))


def aten_ops(fn):
    """Run fn(); return (its result, the aten operators it reached, in order)."""
    with RecordAten() as mode:
        result = fn()
    return result, mode.names

# %% tags=["check"]
def check_aten_ops():
    torch.manual_seed(0)
    x = torch.randn(3, 4, requires_grad=True)
    w = torch.randn(2, 4, requires_grad=True)
    b = torch.randn(2, requires_grad=True)
    expected = torch.nn.functional.linear(x, w, b)
    result, names = aten_ops(lambda: torch.nn.functional.linear(x, w, b))
    if not isinstance(result, torch.Tensor) or not torch.equal(result, expected):
        return (
            "wrong: aten_ops must return fn()'s result, and it returned another value"
        )
    if "aten.addmm.default" not in names or "aten.linear.default" in names:
        return (
            f"wrong: in grad mode, linear should reach the kernels as t and addmm, and "
            f"your list is {names}. linear's math kernel runs at the autograd key, "
            "above the Python key, so a dispatch mode sees the ops it calls; a "
            "TorchFunctionMode sees Python functions, before the dispatcher."
        )
    with torch.inference_mode():
        _, names = aten_ops(lambda: torch.nn.functional.linear(x, w, b))
    if names != ["aten.linear.default"]:
        return (
            f"wrong: under inference_mode the list should be ['aten.linear.default'], "
            f"not {names}: with the autograd keys excluded, the Python key is reached "
            "before linear is decomposed."
        )
    return "correct"


print(check_aten_ops())

# %% tags=["mistake"]
from torch.overrides import TorchFunctionMode


class RecordFunctions(TorchFunctionMode):
    # Above the dispatcher: it sees the Python API's functions.
    def __init__(self):
        super().__init__()
        self.names = []

    def __torch_function__(self, func, types, args=(), kwargs=None):
        self.names.append(str(func))
        return func(*args, **(kwargs or {}))


def aten_ops(fn):
    with RecordFunctions() as mode:
        result = fn()
    return result, mode.names

# %% [markdown]
# ## 练习 5：你自己的算子，用在两个后端上 {#an-operator-of-your-own}
# <!-- translates f7f578e79fb5 -->
#
# [`Library.define`](pytorch:torch/library.py#Library.define) 为分发器定义一个新算子，
# [`Library.impl`](pytorch:torch/library.py#Library.impl) 把一个 Python 内核放在某个分发键上。
# 没有内核的键会回退：对 `Meta` 来说，回退到一个抛出异常的内核。
# 补全 `define_softsign(lib)`，让 `lib` 定义 `softsign(Tensor x) -> Tensor`，
# 计算 `x / (1 + |x|)`，并且能在 CPU 张量和 meta 张量上运行（只有形状和数据类型，
# 没有数据）。检查单元格会给你一个位于独立命名空间中的新库，
# 并调用 `torch.ops.<namespace>.softsign`。

# %% tags=["starter"] exercise="define-softsign"
def define_softsign(lib):
    """Define lib's softsign(Tensor x) -> Tensor with CPU and Meta kernels."""
    ...

# %% tags=["solution"]
def define_softsign(lib):
    """Define lib's softsign(Tensor x) -> Tensor with CPU and Meta kernels."""
    lib.define("softsign(Tensor x) -> Tensor")

    def softsign_cpu(x):
        return x / (1 + x.abs())

    def softsign_meta(x):
        return torch.empty_like(x)

    lib.impl("softsign", softsign_cpu, "CPU")
    lib.impl("softsign", softsign_meta, "Meta")

# %% tags=["check"]
import itertools

namespaces = (f"lab_softsign_{n}" for n in itertools.count())


def check_define_softsign():
    namespace = next(namespaces)
    lib = torch.library.Library(namespace, "DEF")
    try:
        define_softsign(lib)
        op = getattr(torch.ops, namespace).softsign
        x = torch.tensor([-3.0, 0.0, 1.0])
        if not torch.allclose(op(x), x / (1 + x.abs())):
            return f"wrong: on CPU, softsign({x.tolist()}) gave {op(x).tolist()}"
        try:
            out = op(torch.ones(2, 5, device="meta"))
        except NotImplementedError:
            return (
                "wrong: on a meta tensor the operator raised NotImplementedError: with "
                "no kernel at the Meta key, the call reached the Meta fallback, which "
                "raises. Register a kernel for Meta that makes an empty result of the "
                "right shape."
            )
        if out.device.type != "meta" or tuple(out.shape) != (2, 5):
            return (
                f"wrong: on a (2, 5) meta tensor the result is a {tuple(out.shape)} "
                f"tensor on {out.device}, not a (2, 5) meta tensor"
            )
        return "correct"
    finally:
        lib._destroy()


print(check_define_softsign())

# %% tags=["mistake"]
def define_softsign(lib):
    # A CPU kernel only: the Meta row keeps its fallback.
    lib.define("softsign(Tensor x) -> Tensor")
    lib.impl("softsign", lambda x: x / (1 + x.abs()), "CPU")
