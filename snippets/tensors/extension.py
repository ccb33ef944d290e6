"""dtype, device and layout: two fields and a key set pick a TensorImpl and a kernel."""
import torch

torch.set_printoptions(precision=4, sci_mode=False)

# --8<-- [start:dispatch_keys]
import warnings

warnings.filterwarnings("ignore", message="Sparse CSR tensor support is in beta")
dense = torch.ones(2, 2)
tensors = {
    "dense": dense,
    "int64": dense.long(),
    "meta": torch.empty(2, 2, device="meta"),
    "sparse_coo": dense.to_sparse(),
    "sparse_csr": dense.to_sparse_csr(),
    "sparse_csc": dense.to_sparse_csc(),
    "mkldnn": dense.to_mkldnn(),
}
for name, t in tensors.items():
    keys = str(torch._C._dispatch_keys(t)).removeprefix("DispatchKeySet(").removesuffix(")")
    print(f"{name:11}{t.device.type:5}{str(t.dtype):14}{str(t.layout):18}{keys}")
# --8<-- [end:dispatch_keys]

# --8<-- [start:custom_layout]
class LayoutFromPython(torch.Tensor):
    """A wrapper subclass that answers the layout question itself."""

    @staticmethod
    def __new__(cls, like):
        return torch.Tensor._make_wrapper_subclass(cls, like.shape, dtype=like.dtype, dispatch_layout=True)

    @classmethod
    def __torch_dispatch__(cls, func, types, args=(), kwargs=None):
        print("asked:", func)
        if func is torch.ops.prim.layout.default:
            return torch.sparse_coo
        raise NotImplementedError(func)


odd = LayoutFromPython(dense)
print("layout:", odd.layout, "| device:", odd.device.type,
      "| sparse key:", "SparseCPU" in str(torch._C._dispatch_keys(odd)))
# --8<-- [end:custom_layout]

# --8<-- [start:dtype_in_kernel]
u16 = torch.ones(2, dtype=torch.uint16)
print("uint16 keys == float32 keys:", torch._C._dispatch_keys(u16) == torch._C._dispatch_keys(dense))
for op in (lambda t: t + t, lambda t: t.abs()):
    try:
        op(u16)
    except NotImplementedError as e:
        print(f"NotImplementedError: {e}")
print("uint16 comparison works:", (u16 == u16).tolist())
on_meta = u16.to("meta")
print("uint16 add and abs on meta:", (on_meta + on_meta).dtype, on_meta.abs().dtype)
# --8<-- [end:dtype_in_kernel]

# --8<-- [start:meta]
acts = torch.empty(4096, 4096, 64, device="meta")  # would be 4 GiB of float32
print(acts)
print("stride:", acts.stride(), "| storage nbytes:", acts.untyped_storage().nbytes(),
      "| null buffer:", acts.untyped_storage().data_ptr() == 0)

w = torch.empty(64, 128, device="meta")
out = acts @ w  # shape and dtype inference run; no arithmetic does
print("matmul result:", tuple(out.shape), out.dtype,
      f"{out.numel() * out.element_size() / 2**30:.1f} GiB if materialised")

try:
    out.sum().item()
except RuntimeError as e:
    print(f"RuntimeError: {e}")

layer = torch.nn.Linear(4096, 4096, device="meta")  # no 64 MiB allocation happens
print("parameter bytes:", sum(p.numel() * p.element_size() for p in layer.parameters()))
layer = layer.to_empty(device="cpu")  # real, uninitialised storage; now init it
print("after to_empty:", layer.weight.device, layer.weight.untyped_storage().nbytes(), "bytes")
# --8<-- [end:meta]

# --8<-- [start:sparse]
coo = torch.sparse_coo_tensor(
    torch.tensor([[0, 2], [1, 0]]), torch.tensor([3.0, 4.0]), (3, 3), check_invariants=True
)
print(coo.layout, "| nnz:", coo._nnz())
print("indices:", coo._indices().tolist(), coo._indices().layout)
print("values: ", coo._values().tolist(), coo._values().layout)
try:
    coo.untyped_storage()
except RuntimeError as e:
    print(f"RuntimeError: {e}")
try:
    coo.view(9)
except NotImplementedError as e:
    print(f"NotImplementedError: {str(e).split('. ')[0]}.")
print(coo.to_dense())
# --8<-- [end:sparse]

# --8<-- [start:promotion]
i64 = torch.tensor([1, 2, 3])
f32 = torch.tensor([1.0, 2.0, 3.0])
cases = {
    "int64 tensor + 1.5 (Python float)": lambda: i64 + 1.5,
    "int64 tensor * 0-dim float64":      lambda: i64 * torch.tensor(2.5, dtype=torch.float64),
    "float32 tensor + 0-dim float64":    lambda: f32 + torch.tensor(1.0, dtype=torch.float64),
    "float32 tensor + 1-d float64":      lambda: f32 + torch.tensor([1.0], dtype=torch.float64),
    "uint8 + int8":                      lambda: torch.ones(1, dtype=torch.uint8) + torch.ones(1, dtype=torch.int8),
    "int32 / 2":                         lambda: torch.tensor([1], dtype=torch.int32) / 2,
}
for label, op in cases.items():
    print(f"{label:36}-> {op().dtype}")
print("torch.result_type(i64, 1.5):", torch.result_type(i64, 1.5))
try:
    i64.add_(1.5)  # in-place cannot change the dtype of its output
except RuntimeError as e:
    print(f"RuntimeError: {e}")
# --8<-- [end:promotion]
