# %% [markdown]
# # Dispatch lab: keys, thread-local state, modes and new operators
#
# Five exercises on the [Operator dispatch](../dispatch.md) chapter, in the order a
# reader meets its ideas: which keys a tensor carries, how the thread's state changes
# the keys a call dispatches on, which kernel runs first, what a `TorchDispatchMode`
# sees, and how an operator of your own gets a kernel for each backend key.
# Each exercise has a cell to complete (it holds `...`), a worked solution (folded:
# try first), and a check that prints `correct`, or what is wrong and why. The checks
# test the mechanism, not one value: an answer that only fits the obvious case fails.
#
# To work through it, download the notebook, complete a cell, run it, and run the
# check below its solution (not the solution itself, which would replace your answer).
# Every cell of the notebook was run by the build with the torch named at its top.

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
# ## Exercise 1: the autograd key is not `requires_grad` {#the-autograd-key}
#
# Every tensor carries a [`DispatchKeySet`](pytorch:c10/core/DispatchKeySet.h#DispatchKeySet),
# fixed when it is made; `torch._C._dispatch_keys(t)` returns it, and its `has(key)`
# asks whether a key is in it. Complete `has_autograd_key(t)`: `True` when a call on
# `t` can pass through an autograd kernel, whatever `t`'s device. `DK.AutogradFunctionality`
# is the autograd bit without a backend. Think about which tensors carry it: one that
# does not require grad, a meta tensor, a tensor made under
# [`InferenceMode`](pytorch:c10/core/InferenceMode.h#InferenceMode).

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
# ## Exercise 2: the keys a call dispatches on {#the-keys-a-call-dispatches-on}
#
# A call does not dispatch on one tensor's keys: the
# [`DispatchKeyExtractor`](pytorch:aten/src/ATen/core/dispatch/DispatchKeyExtractor.h#DispatchKeyExtractor)
# takes the union of its tensor arguments' sets, adds the thread's included set and
# removes its excluded set
# ([`LocalDispatchKeySet`](pytorch:c10/core/impl/LocalDispatchKeySet.h#LocalDispatchKeySet)).
# The thread's two sets are `torch._C._dispatch_tls_local_include_set()` and
# `torch._C._dispatch_tls_local_exclude_set()`; key sets combine with `|` and `-`.
# Complete `call_keys(*tensors)` so that it returns the set a call on these tensors
# dispatches on right now (before the operator's own fallthroughs are skipped).

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
# ## Exercise 3: the first kernel that runs {#the-first-kernel-that-runs}
#
# The dispatcher takes the highest-priority key of the call's set
# ([`DispatchKeySet::highestPriorityTypeId`](pytorch:c10/core/DispatchKeySet.h#DispatchKeySet::highestPriorityTypeId))
# and runs the kernel in that key's row of the operator's table, unless the row is a
# `fallthrough`: then the key is skipped and the next one is tried. The setup's
# `table_rows(op)` reads the computed table
# ([`OperatorEntry.cpp`](pytorch:aten/src/ATen/core/dispatch/OperatorEntry.cpp)), a row
# that starts with `fallthrough` is skipped, and `keys.remove(key)` returns the set
# without a key. Complete `first_kernel(op, *tensors)` so that it returns the
# `DispatchKey` whose kernel runs first for a call of `op` (such as
# `"aten::add.Tensor"`) on these tensors now; use your `call_keys` from Exercise 2.

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
# ## Exercise 4: the operators below autograd {#the-operators-below-autograd}
#
# A [`TorchDispatchMode`](pytorch:torch/utils/_python_dispatch.py#TorchDispatchMode)
# is called at the `Python` key, below `Autograd`: it sees the aten operators that
# reach the kernels, after composite operators such as `linear` were decomposed by
# their autograd-row math kernel. Complete `aten_ops(fn)` so that it runs `fn()` and
# returns its result with the list of aten operators the call reached, each named as
# `str(func)` names it (`'aten.addmm.default'`).

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
# ## Exercise 5: an operator of your own, on two backends {#an-operator-of-your-own}
#
# [`Library.define`](pytorch:torch/library.py#Library.define) gives the dispatcher a
# new operator, and [`Library.impl`](pytorch:torch/library.py#Library.impl) puts a
# Python kernel at one dispatch key. A key with no kernel falls back: for `Meta`, to
# a kernel that raises. Complete `define_softsign(lib)` so that `lib` defines
# `softsign(Tensor x) -> Tensor`, computing `x / (1 + |x|)`, that runs on CPU tensors
# and on meta tensors (shape and dtype only, no data). The check gives you a fresh
# library in a namespace of its own and calls `torch.ops.<namespace>.softsign`.

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
