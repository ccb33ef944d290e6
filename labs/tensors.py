# %% [markdown]
# # Tensors lab: strides, views and storage
#
# Five exercises on the [Tensors and storage](../tensors.md) chapter, in the order a
# reader meets its ideas: where an element lives, which operations alias, what
# contiguity means, what keeps a storage alive, and what the version counter sees.
# Each exercise has a cell to complete (it holds `...`), a worked solution (folded:
# try first), and a check that prints `correct`, or what is wrong and why. The checks
# test the mechanism, not one value: an answer that only fits the obvious case fails.
#
# To work through it, download the notebook, complete a cell, run it, and run the
# check below its solution (not the solution itself, which would replace your answer).
# Every cell of the notebook was run by the build with the torch named at its top.

# %% tags=["setup"]
import torch

# Made from arange: each element's value is its position in the storage.
grid = torch.arange(24).view(4, 6)
print(grid)

# %% [markdown]
# ## Exercise 1: where an element lives {#where-an-element-lives}
#
# A tensor's data is a flat storage; the tensor itself is a view of it through three
# fields of [`TensorImpl`](pytorch:c10/core/TensorImpl.h#TensorImpl): sizes, strides
# and a storage offset. Complete `element_offset` so that it returns the position, in
# elements, of `t[index]` in `t`'s storage, for any 2-D `t`, including transposed and
# sliced views of `grid`.

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
# ## Exercise 2: a view, not a copy {#a-view-not-a-copy}
#
# Basic indexing (integers and slices) makes a view that shares its input's storage;
# indexing with a list or a tensor gathers the elements into a new one. Complete
# `last_column` so that it returns the last column of a 2-D tensor as a view: a write
# through it must change the matrix. The check looks at
# [`untyped_storage()`](pytorch:torch/storage.py#UntypedStorage) and writes through
# your result.

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
# ## Exercise 3: contiguity from strides {#contiguity-from-strides}
#
# `is_contiguous()` answers a question about sizes and strides alone
# ([`_compute_contiguous`](pytorch:c10/core/Contiguity.h#_compute_contiguous)). Write
# `is_row_major(t)` without calling it: `True` when `t`'s elements are laid out in
# row-major order with no gaps. Two details of torch's rule matter: a dimension of
# size 1 has a single index, so its stride never moves anything, and a tensor with no
# elements is contiguous whatever its strides.

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
# ## Exercise 4: a slice that keeps a storage alive {#storage-kept-alive}
#
# A view keeps its whole storage alive
# ([`StorageImpl`](pytorch:c10/core/StorageImpl.h#StorageImpl) is reference-counted),
# so ten numbers sliced from a million keep four megabytes. Complete `compact` so that
# it returns the same values in a storage just large enough for them.

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
# ## Exercise 5: a write the version counter sees {#a-counted-write}
#
# Autograd saves some inputs for the backward pass and remembers each one's version
# ([`VariableVersion`](pytorch:c10/core/TensorImpl.h#VariableVersion)); every in-place
# operation bumps it, and backward refuses a saved tensor whose version moved.
# Complete `scale_in_place` so that it multiplies `t` by `k` in place, and autograd
# can tell that `t` changed.

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
