# %% [markdown]
# # Memory lab: storages, saved tensors, checkpointing and in-place writes
#
# Five exercises on the [Memory](../memory.md) chapter, all on the CPU, in the order a
# reader meets its ideas: how many bytes a set of tensors keeps alive, what keeps a
# graph alive after a training step, how much autograd saves for backward, what
# checkpointing saves instead, and where an in-place write saves a buffer safely.
# Each exercise has a cell to complete (it holds `...`), a worked solution (folded:
# try first), and a check that prints `correct`, or what is wrong and why. The checks
# test the mechanism, not one value: an answer that only fits the obvious case fails.
#
# To work through it, download the notebook, complete a cell, run it, and run the
# check below its solution (not the solution itself, which would replace your answer).
# Every cell of the notebook was run by the build with the torch named at its top.

# %% tags=["setup"]
import weakref

import numpy as np
import torch
from torch import nn
from torch.multiprocessing.reductions import StorageWeakRef
from torch.utils.checkpoint import checkpoint

big = torch.zeros(1000)
print("numel * element_size:", big[:10].numel() * big[:10].element_size())
print("storage nbytes:      ", big[:10].untyped_storage().nbytes())

# %% [markdown]
# ## Exercise 1: the bytes a set of tensors keeps alive {#bytes-kept-alive}
#
# A tensor's memory is its storage's
# ([`StorageImpl`](pytorch:c10/core/StorageImpl.h#StorageImpl)), and several tensors
# can share one. Complete `bytes_kept_alive(tensors)` so that it returns how many bytes
# of storage the tensors in the list keep alive together: a slice keeps its whole
# base, a view shares its base's storage, and an expanded tensor may have more
# elements than its storage.

# %% tags=["starter"] exercise="bytes-kept-alive"
def bytes_kept_alive(tensors):
    """The bytes of the distinct storages behind the tensors in the list."""
    ...

# %% tags=["solution"]
def bytes_kept_alive(tensors):
    """The bytes of the distinct storages behind the tensors in the list."""
    storages = {}
    for t in tensors:
        storages[StorageWeakRef(t.untyped_storage())] = t.untyped_storage().nbytes()
    return sum(storages.values())

# %% tags=["check"]
def check_bytes_kept_alive():
    base = torch.zeros(1000)  # 4,000 bytes
    m = torch.zeros(10, 10)  # 400 bytes
    cases = [
        ("[base[:10]]", [base[:10]], 4000, "a slice keeps its base's whole storage"),
        ("[m, m.t()]", [m, m.t()], 400,
         "a view shares its base's storage: count it once"),
        ("[zeros(1).expand(1000)]", [torch.zeros(1).expand(1000)], 4,
         "an expanded tensor has 1,000 elements on a 4-byte storage (stride 0)"),
        ("[m, base]", [m, base], 4400, "two storages of their own add up"),
    ]
    for name, tensors, expected, why in cases:
        got = bytes_kept_alive(tensors)
        if got != expected:
            return f"wrong: for {name} you said {got:,} bytes, not {expected:,}: {why}."
    return "correct"


print(check_bytes_kept_alive())

# %% tags=["mistake"]
def bytes_kept_alive(tensors):
    # The bytes of each tensor's elements: what it shows, not what it holds.
    return sum(t.nbytes for t in tensors)

# %% tags=["mistake"]
def bytes_kept_alive(tensors):
    # Each tensor's storage, counted once per tensor.
    return sum(t.untyped_storage().nbytes() for t in tensors)

# %% [markdown]
# ## Exercise 2: a logged loss that keeps its graph {#a-logged-loss}
#
# A tensor with a `grad_fn` keeps its graph alive, and every
# [`Node`](pytorch:torch/autograd/graph.py#Node) in it keeps what it saved for
# backward. A loop that appends each loss to a history list and never calls
# `backward()` on it, as an evaluation loop does, keeps every batch's graph and the
# activations saved in it. Complete
# `log_value(loss)` so that it returns what to append: the loss's value, holding
# nothing of the graph. The check watches a 400,000-byte input that the graph saved,
# through a weak reference to the NumPy array behind it.

# %% tags=["starter"] exercise="log-value"
def log_value(loss):
    """What a history list should keep of a scalar loss."""
    ...

# %% tags=["solution"]
def log_value(loss):
    """What a history list should keep of a scalar loss."""
    return loss.item()

# %% tags=["check"]
def check_log_value():
    array = np.ones(100_000, dtype=np.float32)  # 400,000 bytes
    array_alive = weakref.ref(array)
    data = torch.from_numpy(array)  # the storage holds the array
    del array
    w = torch.full((100_000,), 0.5, requires_grad=True)
    loss = (w * data).sum()  # mul saves data: w's gradient is data
    del data
    value = loss.detach().item()
    history = [log_value(loss)]
    del loss
    kept = history[0]
    number = kept.detach().item() if isinstance(kept, torch.Tensor) else float(kept)
    if number != value:
        return f"wrong: the history holds {number}, not the loss {value}"
    if array_alive() is not None:
        grad_fn = type(getattr(kept, "grad_fn", None)).__name__
        return (
            "wrong: with the loss deleted, its saved input is still alive: your entry "
            f"has grad_fn {grad_fn}, so it holds the graph, "
            "and the graph's MulBackward0 holds the input it saved. A copy made by a "
            "differentiable operation is part of the graph too; keep a float, or a "
            "tensor detached from the graph."
        )
    return "correct"


print(check_log_value())

# %% tags=["mistake"]
def log_value(loss):
    # A copy of the tensor: clone is differentiable, so it joins the graph.
    return loss.clone()

# %% [markdown]
# ## Exercise 3: what autograd saves {#what-autograd-saves}
#
# [`saved_tensors_hooks`](pytorch:torch/autograd/graph.py#saved_tensors_hooks) calls a
# `pack` function for every tensor an autograd node saves for backward, and an
# `unpack` function when backward reads it back; returning the tensor unchanged from
# both leaves autograd as it was. Complete `saved_bytes(fn)` so that it runs `fn()`
# and returns how many bytes of storage the graph it builds keeps saved. A tensor
# saved twice is one storage, and a saved view keeps its base's whole storage.

# %% tags=["starter"] exercise="saved-bytes"
def saved_bytes(fn):
    """Run fn(); return the bytes of the distinct storages autograd saved."""
    ...

# %% tags=["solution"]
def saved_bytes(fn):
    """Run fn(); return the bytes of the distinct storages autograd saved."""
    saved = {}

    def pack(t):
        saved[StorageWeakRef(t.untyped_storage())] = t.untyped_storage().nbytes()
        return t

    with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        fn()
    return sum(saved.values())

# %% tags=["check"]
def check_saved_bytes():
    x = torch.randn(1000, requires_grad=True)  # 4,000 bytes
    cases = [
        ("(x + 1).sum()", lambda: (x + 1).sum(), 0,
         "add with a number and sum need no tensor for their gradients"),
        ("x.exp()", lambda: x.exp(), 4000,
         "exp saves its result, a new 4,000-byte storage"),
        ("x * x", lambda: x * x, 4000,
         "mul saves both inputs, here the same storage twice: it is kept once"),
        ("x[:10].sin()", lambda: x[:10].sin(), 4000,
         "sin saves its input, a 10-element view that keeps x's whole storage"),
    ]
    for name, fn, expected, why in cases:
        got = saved_bytes(fn)
        if got != expected:
            return (
                f"wrong: for {name} you counted {got:,} bytes, not {expected:,}: {why}."
            )
    return "correct"


print(check_saved_bytes())

# %% tags=["mistake"]
def saved_bytes(fn):
    # Every pack call counted: a tensor saved twice is counted twice.
    total = 0

    def pack(t):
        nonlocal total
        total += t.untyped_storage().nbytes()
        return t

    with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        fn()
    return total

# %% tags=["mistake"]
def saved_bytes(fn):
    # Each saved tensor's own elements, once per storage: a view's size, not its base's.
    saved = {}

    def pack(t):
        saved[StorageWeakRef(t.untyped_storage())] = t.numel() * t.element_size()
        return t

    with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        fn()
    return sum(saved.values())

# %% [markdown]
# ## Exercise 4: checkpointing a block {#checkpointing-a-block}
#
# Activation checkpointing ([`checkpoint`](pytorch:torch/utils/checkpoint.py#checkpoint))
# saves a block's inputs instead of what the block saves inside, and runs the block's
# forward again during backward to get the rest. Complete `run_checkpointed(block, x)`
# so that it returns `block(x)` with a graph that saves no more than `x`, while
# backward still gives the block's weights their gradients. In the check, `x` does
# not require grad, as a batch of data does not.

# %% tags=["starter"] exercise="run-checkpointed"
def run_checkpointed(block, x):
    """block(x), saving only x for backward; backward recomputes the rest."""
    ...

# %% tags=["solution"]
def run_checkpointed(block, x):
    """block(x), saving only x for backward; backward recomputes the rest."""
    return checkpoint(block, x, use_reentrant=False)

# %% tags=["check"]
import warnings


class CountedGELU(nn.GELU):
    def forward(self, x):
        self.runs = getattr(self, "runs", 0) + 1
        return super().forward(x)


def check_run_checkpointed():
    torch.manual_seed(0)
    block = nn.Sequential(nn.Linear(64, 256), CountedGELU(), nn.Linear(256, 64))
    x = torch.randn(16, 64)  # 4,096 bytes, no grad
    block(x).sum().backward()
    expected = [p.grad.clone() for p in block.parameters()]
    block.zero_grad(set_to_none=True)
    block[1].runs = 0
    params = {StorageWeakRef(p.untyped_storage()) for p in block.parameters()}
    saved = {}

    def pack(t):
        if StorageWeakRef(t.untyped_storage()) not in params:
            saved[StorageWeakRef(t.untyped_storage())] = t.untyped_storage().nbytes()
        return t

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
            out = run_checkpointed(block, x)
    said = "".join(f" It warned: {w.message}." for w in caught)
    if out.grad_fn is None:
        return (
            "wrong: the result has no graph, so backward cannot reach the block's "
            f"weights.{said} Checkpointing records the block and saves its inputs; "
            "no_grad records nothing, and the reentrant variant records nothing when "
            "no input requires grad."
        )
    if sum(saved.values()) > x.untyped_storage().nbytes():
        return (
            f"wrong: the graph saves {sum(saved.values()):,} bytes, more than x's "
            f"{x.untyped_storage().nbytes():,}: the block's activations were saved. "
            "Run the block through torch.utils.checkpoint.checkpoint."
        )
    out.sum().backward()
    got = [p.grad for p in block.parameters()]
    if any(g is None for g in got) or not all(map(torch.allclose, got, expected)):
        return "wrong: the block's weights did not get the gradients of block(x)"
    if block[1].runs != 2:
        return f"wrong: GELU ran {block[1].runs} times, where recomputing runs it twice"
    return "correct"


print(check_run_checkpointed())

# %% tags=["mistake"]
def run_checkpointed(block, x):
    # Saves nothing, because it records nothing.
    with torch.no_grad():
        return block(x)

# %% tags=["mistake"]
def run_checkpointed(block, x):
    # The reentrant variant, with an input that does not require grad.
    return checkpoint(block, x, use_reentrant=True)

# %% tags=["mistake"]
def run_checkpointed(block, x):
    # The block as it is: every activation saved.
    return block(x)

# %% [markdown]
# ## Exercise 5: an in-place write that saves a buffer {#an-in-place-write}
#
# An in-place operation writes into its input's storage instead of allocating one, and
# bumps the tensor's version counter
# ([`VariableVersion`](pytorch:c10/core/TensorImpl.h#VariableVersion)); backward refuses
# a saved tensor whose version moved. Complete `relu_of_double(x)`, which returns
# `relu(2 * x)`, so that its forward allocates one new buffer, not two, leaves `x` as
# it was, and backward still works. The check counts the storages the aten operators
# return with a dispatch mode.

# %% tags=["starter"] exercise="relu-of-double"
def relu_of_double(x):
    """relu(2 * x), allocating one buffer; x unchanged; differentiable."""
    ...

# %% tags=["solution"]
def relu_of_double(x):
    """relu(2 * x), allocating one buffer; x unchanged; differentiable."""
    y = x * 2  # mul by a number saves nothing: y may be overwritten
    return y.relu_()  # relu_ saves its result, which nothing changes after

# %% tags=["check"]
from torch.utils._python_dispatch import TorchDispatchMode
from torch.utils._pytree import tree_leaves


class NewStorages(TorchDispatchMode):
    """Collect the storages the aten operators return, other than known ones."""

    def __init__(self, known):
        super().__init__()
        self.known, self.new = set(known), set()

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        out = func(*args, **(kwargs or {}))
        for t in tree_leaves(out):
            if isinstance(t, torch.Tensor):
                storage = StorageWeakRef(t.untyped_storage())
                if storage not in self.known:
                    self.new.add(storage)
        return out


def check_relu_of_double():
    w = torch.tensor([-1.0, 0.5, 2.0], requires_grad=True)
    x = w * 1  # a tensor inside a graph, as a layer's input is
    before = x.detach().clone()
    with NewStorages([StorageWeakRef(x.untyped_storage())]) as mode:
        out = relu_of_double(x)
    if not torch.equal(out.detach(), torch.relu(2 * before)):
        return f"wrong: relu(2 * {before.tolist()}) is not {out.tolist()}"
    if not torch.equal(x.detach(), before):
        return (
            f"wrong: x changed from {before.tolist()} to {x.tolist()}: your function "
            "wrote into its input, which its caller (and the graph) still uses. Write "
            "in place only into a tensor your function made."
        )
    if len(mode.new) != 1:
        return (
            f"wrong: the forward allocated {len(mode.new)} new storages, not 1: the "
            "second operation can write into the first one's result."
        )
    try:
        out.sum().backward()
    except RuntimeError as error:
        return (
            "wrong: backward failed: " + str(error).split(": [")[0] + ". relu saves "
            "its result for backward, so writing into that result afterwards breaks "
            "it; double first, then relu in place."
        )
    if not torch.equal(w.grad, torch.tensor([0.0, 2.0, 2.0])):
        return f"wrong: the gradient is {w.grad.tolist()}, not [0.0, 2.0, 2.0]"
    return "correct"


print(check_relu_of_double())

# %% tags=["mistake"]
def relu_of_double(x):
    # Right, and two buffers: the product, then the relu of it.
    return (x * 2).relu()

# %% tags=["mistake"]
def relu_of_double(x):
    # Doubled in place: no new buffer at all, but the input is overwritten.
    return x.mul_(2).relu_()

# %% tags=["mistake"]
def relu_of_double(x):
    # The same arithmetic, in the other order: the write lands on what relu saved.
    return x.relu().mul_(2)
