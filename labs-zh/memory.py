# %% [markdown]
# # 内存动手练习：存储、保存的张量、检查点与原地写入
# <!-- translates 8dc7b5fc33d7 -->
#
# 五道练习，配合[内存与显存](../memory.md)一章，全部在 CPU 上运行，按读者接触这些概念的顺序排列：
# 一组张量一共让多少字节存活、训练一步之后是什么让计算图存活、
# 自动微分为反向传播保存了多少、检查点改为保存什么，以及原地写入在哪里能安全地省下一块缓冲区。
# 每道练习有一个待补全的单元格（其中写着 `...`）、
# 一份参考答案（默认折叠：请先自己尝试），以及一个检查单元格：它输出 `correct`，
# 或者指出哪里错了、为什么错。检查的是机制，而不是某一个值：
# 只对最直观的情形成立的答案过不了检查。
#
# 练习方法：下载笔记本，补全一个单元格并运行，然后运行参考答案下方的检查单元格
# （不要运行参考答案本身，它会覆盖你的答案）。
# 笔记本中的每个单元格都由构建用页首注明的 torch 运行过。

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
# ## 练习 1：一组张量让多少字节存活 {#bytes-kept-alive}
# <!-- translates 9ab32601e7ca -->
#
# 张量的内存是它的存储的内存
# （[`StorageImpl`](pytorch:c10/core/StorageImpl.h#StorageImpl)），而多个张量可以共享同一块存储。
# 补全 `bytes_kept_alive(tensors)`，让它返回列表中的张量一共让多少字节的存储保持存活：
# 切片会让它的基张量的整块存储存活，视图与基张量共享存储，
# 而扩展（expand）得到的张量的元素可能比它的存储多。

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
# ## 练习 2：记录下来的损失留住了计算图 {#a-logged-loss}
# <!-- translates af93d4041c69 -->
#
# 带有 `grad_fn` 的张量会让它的计算图存活，而图中的每个
# [`Node`](pytorch:torch/autograd/graph.py#Node) 都留着它为反向传播保存的东西。
# 一个把每个损失追加到历史列表、却从不对它调用 `backward()` 的循环（评估循环就是这样），
# 会留住每个批次的计算图以及其中保存的激活值。补全 `log_value(loss)`，
# 让它返回应当追加的东西：损失的值，而不持有计算图的任何部分。
# 检查单元格通过指向背后那个 NumPy 数组的弱引用，观察一个被计算图保存的 400,000 字节的输入。

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
# ## 练习 3：自动微分保存了什么 {#what-autograd-saves}
# <!-- translates ca20523c94c6 -->
#
# [`saved_tensors_hooks`](pytorch:torch/autograd/graph.py#saved_tensors_hooks)
# 会在自动微分节点为反向传播保存每个张量时调用一个 `pack` 函数，
# 在反向传播读回它时调用一个 `unpack` 函数；两者都原样返回张量时，自动微分的行为不变。
# 补全 `saved_bytes(fn)`，让它运行 `fn()`，并返回它构建的计算图保存着多少字节的存储。
# 被保存两次的张量只是一块存储，而被保存的视图会让它的基张量的整块存储存活。

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
# ## 练习 4：给一个模块加检查点 {#checkpointing-a-block}
# <!-- translates bffe046ec071 -->
#
# 激活检查点（[`checkpoint`](pytorch:torch/utils/checkpoint.py#checkpoint)）
# 保存模块的输入，而不是模块内部要保存的东西，并在反向传播时再次运行模块的前向计算来得到其余部分。
# 补全 `run_checkpointed(block, x)`，让它返回 `block(x)`，其计算图保存的不超过 `x`，
# 同时反向传播仍然能给模块的权重算出梯度。检查单元格中的 `x` 不需要梯度，
# 就像一批数据那样。

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
# ## 练习 5：省下一块缓冲区的原地写入 {#an-in-place-write}
# <!-- translates db01969041a4 -->
#
# 原地操作写入输入的存储，而不是另外分配一块，并让张量的版本计数器加一
# （[`VariableVersion`](pytorch:c10/core/TensorImpl.h#VariableVersion)）；
# 保存的张量一旦版本变了，反向传播就会拒绝使用它。补全返回 `relu(2 * x)` 的 `relu_of_double(x)`，
# 让它的前向计算只分配一块新的缓冲区而不是两块，不改动 `x`，并且反向传播仍然可用。
# 检查单元格用一个分发模式统计 aten 算子返回的存储。

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
