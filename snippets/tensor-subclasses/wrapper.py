"""_make_wrapper_subclass: a tensor whose metadata is given, with no data of its own."""
import torch

torch.manual_seed(0)
torch.set_num_threads(1)

# --8<-- [start:metadata]
class Shell(torch.Tensor):
    """Claims the sizes and dtype it is given; holds `inner` as a Python attribute."""

    @staticmethod
    def __new__(cls, inner, shape, dtype):
        return torch.Tensor._make_wrapper_subclass(cls, shape, dtype=dtype,
                                                   device=inner.device)

    def __init__(self, inner, shape, dtype):
        self.inner = inner

    def __repr__(self):
        return f"Shell(shape={tuple(self.shape)}, dtype={self.dtype})"

    @classmethod
    def __torch_dispatch__(cls, func, types, args=(), kwargs=None):
        raise NotImplementedError(f"Shell does not implement {func}")


inner = torch.arange(6, dtype=torch.int8)
s = Shell(inner, shape=(2, 3), dtype=torch.float32)
for name, t in [("wrapper", s), ("inner", s.inner)]:
    print(f"{name:<8} shape {tuple(t.shape)}  stride {t.stride()}  {t.dtype}"
          f"  nbytes {t.nbytes}")
# --8<-- [end:metadata]

# --8<-- [start:no_data]
print("data_ptr():", s.data_ptr())
storage = s.untyped_storage()
print("its storage claims", storage.nbytes(), "bytes")
try:
    storage.data_ptr()
except RuntimeError as e:
    print("storage.data_ptr():", e)
try:
    s + 1
except NotImplementedError as e:
    print("s + 1:", e)
try:
    s.tolist()
except RuntimeError as e:
    print("s.tolist():", e)
# --8<-- [end:no_data]

# --8<-- [start:vs_subclass]
class Tagged(torch.Tensor):
    """A plain subclass: a new TensorImpl over the base tensor's storage."""


class Dispatching(torch.Tensor):
    """A plain subclass with a __torch_dispatch__ (as FakeTensor is)."""

    @classmethod
    def __torch_dispatch__(cls, func, types, args=(), kwargs=None):
        raise NotImplementedError


def tolist(t):
    try:
        t.tolist()
        return "values"
    except RuntimeError:
        return "refused"


base = torch.ones(2, 3)
made = {
    "as_subclass(Tagged)": base.as_subclass(Tagged),
    "as_subclass(Dispatching)": base.as_subclass(Dispatching),
    "_make_subclass(Dispatching)": torch.Tensor._make_subclass(Dispatching, base),
    "_make_wrapper_subclass(Shell)": Shell(base, base.shape, base.dtype),
}
print(f"{'':<30} {'Python key':<12} {'shares data':<12} tolist()")
for how, t in made.items():
    python_key = torch._C._dispatch_keys(t).has(torch._C.DispatchKey.Python)
    shares = t.data_ptr() == base.data_ptr()
    print(f"{how:<30} {str(python_key):<12} {str(shares):<12} {tolist(t)}")
# --8<-- [end:vs_subclass]

# --8<-- [start:sizes_policy]
class AskedForSizes(Shell):
    """Sizes and strides answered by __torch_dispatch__, not stored in the wrapper."""

    @staticmethod
    def __new__(cls, inner, shape, dtype):
        return torch.Tensor._make_wrapper_subclass(
            cls, shape, dtype=dtype, device=inner.device,
            dispatch_sizes_strides_policy="sizes")

    @classmethod
    def __torch_dispatch__(cls, func, types, args=(), kwargs=None):
        print("  __torch_dispatch__:", func)
        if func is torch.ops.aten.sym_size.default:
            return (2, 3)
        if func is torch.ops.aten.sym_stride.default:
            return (3, 1)
        if func is torch.ops.aten.sym_numel.default:
            return 6
        return super().__torch_dispatch__(func, types, args, kwargs)


a = AskedForSizes(inner, shape=(2, 3), dtype=torch.float32)
print("a.shape:", a.shape)
print("a.stride():", a.stride())
print("a.numel():", a.numel())
print("a.dtype:", a.dtype, "(no call: the dtype is always stored)")
# --8<-- [end:sizes_policy]
