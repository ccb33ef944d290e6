# %% [markdown]
# # 张量动手练习：步长、视图与存储
# <!-- translates 0a4ae2315111 -->
#
# 五道练习，配合[张量与存储](../tensors.md)一章，按读者接触这些概念的顺序排列：
# 元素在哪里、哪些操作共享内存、连续意味着什么、什么让存储一直存活、
# 版本计数器能看到什么。每道练习有一个待补全的单元格（其中写着 `...`）、
# 一份参考答案（默认折叠：请先自己尝试），以及一个检查单元格：它输出 `correct`，
# 或者指出哪里错了、为什么错。检查的是机制，而不是某一个值：
# 只对最直观的情形成立的答案过不了检查。
#
# 练习方法：下载笔记本，补全一个单元格并运行，然后运行参考答案下方的检查单元格
# （不要运行参考答案本身，它会覆盖你的答案）。
# 笔记本中的每个单元格都由构建用页首注明的 torch 运行过。

# %% tags=["setup"]
import torch

# Made from arange: each element's value is its position in the storage.
grid = torch.arange(24).view(4, 6)
print(grid)

# %% [markdown]
# ## 练习 1：元素在哪里 {#where-an-element-lives}
# <!-- translates 18fa634d15bb -->
#
# 张量的数据是一块扁平的存储；张量本身是透过
# [`TensorImpl`](pytorch:c10/core/TensorImpl.h#TensorImpl) 的三个字段看到的视图：
# 尺寸、步长和存储偏移。补全 `element_offset`，让它返回 `t[index]` 在 `t`
# 的存储中的位置（以元素计），对任何二维的 `t` 都成立，包括 `grid`
# 转置和切片得到的视图。

# %% tags=["starter"] exercise="element-offset"
def element_offset(t, index):
    """The position of t[index] in t's storage, counted in elements."""
    ...

# %% tags=["solution"]
def element_offset(t, index):
    """The position of t[index] in t's storage, counted in elements."""
    steps = sum(i * stride for i, stride in zip(index, t.stride()))
    return t.storage_offset() + steps

# %% tags=["check"]
def check_element_offset():
    # Every element of these views is its own storage position (grid came from arange).
    views = {"grid": grid, "grid.t()": grid.t(), "grid[1:, ::2]": grid[1:, ::2]}
    for name, t in views.items():
        for index in [(0, 0), (1, 1), (t.shape[0] - 1, t.shape[1] - 1)]:
            got, where = element_offset(t, index), int(t[index])
            if got != where:
                return (
                    f"wrong: element_offset({name}, {index}) returned {got}, but that "
                    f"element is at position {where}. {name} has shape "
                    f"{tuple(t.shape)}, stride {t.stride()} and storage offset "
                    f"{t.storage_offset()}: a view's layout is in its strides and "
                    "offset, not in its shape."
                )
    return "correct"


print(check_element_offset())

# %% tags=["mistake"]
def element_offset(t, index):
    # Row-major arithmetic from the shape: right for grid alone.
    row, column = index
    return row * t.shape[1] + column

# %% [markdown]
# ## 练习 2：视图，而不是副本 {#a-view-not-a-copy}
# <!-- translates ca71043de661 -->
#
# 基本索引（整数和切片）得到与输入共享存储的视图；用列表或张量做索引
# 则把元素收集到一块新的存储中。补全 `last_column`，让它以视图的形式
# 返回二维张量的最后一列：通过它写入必须改变原矩阵。检查单元格会查看
# [`untyped_storage()`](pytorch:torch/storage.py#UntypedStorage)，并通过你的结果写入。

# %% tags=["starter"] exercise="last-column"
def last_column(m):
    """The last column of the 2-D tensor m, sharing m's storage."""
    ...

# %% tags=["solution"]
def last_column(m):
    """The last column of the 2-D tensor m, sharing m's storage."""
    return m[:, -1]

# %% tags=["check"]
def check_last_column():
    m = torch.arange(12).view(3, 4)
    column = last_column(m)
    if column.tolist() != [3, 7, 11] and column.flatten().tolist() != [3, 7, 11]:
        return f"wrong: the last column of m is [3, 7, 11], not {column.tolist()}"
    shared = column.untyped_storage().data_ptr() == m.untyped_storage().data_ptr()
    column.fill_(-1)
    if not shared or m[0, 3] != -1:
        return (
            "wrong: the values are right, but they are a copy: writing -1 through "
            f"your result left m[0, 3] at {int(m[0, 3])}. An index that is a list or "
            "a tensor always copies (advanced indexing); a slice such as m[:, -1] is "
            "a view."
        )
    return "correct"


print(check_last_column())

# %% tags=["mistake"]
def last_column(m):
    # A list index: the right values, gathered into a storage of their own.
    return m[:, [m.shape[1] - 1]]

# %% [markdown]
# ## 练习 3：由步长判断连续 {#contiguity-from-strides}
# <!-- translates fe621a97acc4 -->
#
# `is_contiguous()` 只根据尺寸和步长作答
# （[`_compute_contiguous`](pytorch:c10/core/Contiguity.h#_compute_contiguous)）。
# 不调用它，写出 `is_row_major(t)`：当 `t` 的元素按行优先顺序紧密排列时返回 `True`。
# torch 的规则有两个细节：尺寸为 1 的维度只有一个下标，它的步长从不移动任何东西；
# 没有元素的张量无论步长如何都是连续的。

# %% tags=["starter"] exercise="is-row-major"
def is_row_major(t):
    """What t.is_contiguous() says, from t.shape and t.stride() alone."""
    ...

# %% tags=["solution"]
def is_row_major(t):
    """What t.is_contiguous() says, from t.shape and t.stride() alone."""
    if t.numel() == 0:
        return True
    expected = 1
    for size, stride in reversed(list(zip(t.shape, t.stride()))):
        if size == 1:
            continue  # one index: its stride is never used
        if stride != expected:
            return False
        expected *= size
    return True

# %% tags=["check"]
def check_is_row_major():
    cases = {
        "grid": grid,
        "grid.t()": grid.t(),
        "grid[:, 1:]": grid[:, 1:],
        "grid[1:3]": grid[1:3],
        "arange(4).view(4, 1).t()": torch.arange(4).view(4, 1).t(),
        "empty(0, 3).t()": torch.empty(0, 3).t(),
    }
    for name, t in cases.items():
        if is_row_major(t) != t.is_contiguous():
            return (
                f"wrong: for {name} (shape {tuple(t.shape)}, stride {t.stride()}) "
                f"you said {is_row_major(t)}, torch says {t.is_contiguous()}. "
                "Dimensions of size 1 are skipped, and an empty tensor is contiguous."
            )
    return "correct"


print(check_is_row_major())

# %% tags=["mistake"]
def is_row_major(t):
    # The strides a fresh tensor of this shape would have, compared as a whole.
    expected, strides = 1, []
    for size in reversed(t.shape):
        strides.insert(0, expected)
        expected *= size
    return t.stride() == tuple(strides)

# %% [markdown]
# ## 练习 4：让存储一直存活的切片 {#storage-kept-alive}
# <!-- translates 6f88050a2a72 -->
#
# 视图会让整块存储一直存活
# （[`StorageImpl`](pytorch:c10/core/StorageImpl.h#StorageImpl) 是引用计数的），
# 所以从一百万个数中切出的十个数会占住四兆字节。补全 `compact`，
# 让它把同样的值放进一块刚好够用的存储中返回。

# %% tags=["starter"] exercise="compact"
def compact(t):
    """t's values, in a storage of their own that holds nothing else."""
    ...

# %% tags=["solution"]
def compact(t):
    """t's values, in a storage of their own that holds nothing else."""
    return t.clone()

# %% tags=["check"]
def check_compact():
    big = torch.zeros(1_000_000)
    head = big[:10]
    small = compact(head)
    if not torch.equal(small, head):
        return "wrong: compact changed the values"
    needed = small.numel() * small.element_size()
    held = small.untyped_storage().nbytes()
    if held != needed:
        return (
            f"wrong: your result's storage holds {held:,} bytes for {needed} bytes of "
            "values: it is still big's storage. contiguous() returns the tensor itself "
            "when it is already contiguous, as a slice of rows is; clone() copies."
        )
    return "correct"


print(check_compact())

# %% tags=["mistake"]
def compact(t):
    # contiguous() copies only a tensor that is not contiguous already.
    return t.contiguous()

# %% [markdown]
# ## 练习 5：版本计数器能看到的写入 {#a-counted-write}
# <!-- translates 6bdb33feb31f -->
#
# 自动微分会为反向传播保存某些输入，并记住每个输入的版本
# （[`VariableVersion`](pytorch:c10/core/TensorImpl.h#VariableVersion)）；
# 每个原地操作都会让版本加一，而反向传播会拒绝版本已经变化的已保存张量。
# 补全 `scale_in_place`，让它原地把 `t` 乘以 `k`，并且让自动微分能察觉 `t` 变了。

# %% tags=["starter"] exercise="scale-in-place"
def scale_in_place(t, k):
    """Multiply t by k in place, where autograd can see the write."""
    ...

# %% tags=["solution"]
def scale_in_place(t, k):
    """Multiply t by k in place, where autograd can see the write."""
    t.mul_(k)

# %% tags=["check"]
def check_scale_in_place():
    w = torch.ones(3, requires_grad=True)
    h = torch.arange(3.0)
    loss = (w * h).sum()  # mul saves h: the gradient of w is h
    scale_in_place(h, 2.0)
    if h.tolist() != [0.0, 2.0, 4.0]:
        return f"wrong: scaled by 2, h should be [0.0, 2.0, 4.0], not {h.tolist()}"
    try:
        loss.backward()
    except RuntimeError as error:
        if "modified by an inplace operation" in str(error):
            return "correct"
        raise
    return (
        f"wrong: backward ran and gave w.grad = {w.grad.tolist()}, from the scaled h "
        f"instead of the saved one. h._version is still {h._version}: a write through "
        ".data is not counted, so autograd could not tell that h had changed."
    )


print(check_scale_in_place())

# %% tags=["mistake"]
def scale_in_place(t, k):
    # Through .data: the same storage, but a version counter of its own.
    t.data.mul_(k)
