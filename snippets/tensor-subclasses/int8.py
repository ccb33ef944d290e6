"""A weight-only int8 tensor subclass: int8 values and a scale per row, in nn.Linear."""
import torch

torch.manual_seed(0)
torch.set_num_threads(1)

# --8<-- [start:define]
aten = torch.ops.aten
IMPLEMENTATIONS = {}  # aten op -> what it means for an Int8WeightTensor


def implements(*ops):
    def register(fn):
        IMPLEMENTATIONS.update(dict.fromkeys(ops, fn))
        return fn
    return register


class Int8WeightTensor(torch.Tensor):
    """A float32 weight (out, in) stored as int8 values and one scale per output row."""

    @staticmethod
    def __new__(cls, qdata, scale, transposed=False):
        rows, cols = qdata.shape
        return torch.Tensor._make_wrapper_subclass(
            cls, (cols, rows) if transposed else (rows, cols), dtype=scale.dtype,
            device=qdata.device)

    def __init__(self, qdata, scale, transposed=False):
        self.qdata = qdata  # int8, (out, in), whichever way the wrapper faces
        self.scale = scale  # float32, (out,)
        self.transposed = transposed  # True for the wrapper of weight.t()

    @classmethod
    def from_float(cls, w):
        scale = w.abs().amax(dim=1) / 127
        return cls(torch.round(w / scale[:, None]).to(torch.int8), scale)

    def dequantize(self):
        w = self.qdata.to(self.scale.dtype) * self.scale[:, None]
        return w.t() if self.transposed else w

    def linear(self, x):
        """x @ W.t(), W = qdata * scale[:, None], with the scale after the product."""
        return torch.matmul(x, self.qdata.t().to(x.dtype)) * self.scale

    def __repr__(self):
        return (f"{type(self).__name__}(shape={tuple(self.shape)},"
                f" transposed={self.transposed})")

    __torch_function__ = torch._C._disabled_torch_function_impl

    @classmethod
    def __torch_dispatch__(cls, func, types, args=(), kwargs=None):
        if func not in IMPLEMENTATIONS:
            raise NotImplementedError(f"{cls.__name__} does not implement {func}")
        return IMPLEMENTATIONS[func](*args, **(kwargs or {}))


@implements(aten.detach.default)  # nn.Parameter(w) calls w.detach()
def _detach(w):
    return type(w)(w.qdata, w.scale, w.transposed)


@implements(aten.t.default)  # F.linear's first step: weight.t(), no data moved
def _t(w):
    return type(w)(w.qdata, w.scale, not w.transposed)


@implements(aten.mm.default)
def _mm(x, w):
    assert isinstance(w, Int8WeightTensor) and not isinstance(x, Int8WeightTensor)
    if w.transposed:  # x @ W.t(): a Linear without bias
        return w.linear(x)
    return torch.mm(x * w.scale, w.qdata.to(x.dtype))  # x @ W: backward, for x.grad


@implements(aten.addmm.default)  # a Linear with bias, on a 2-D input
def _addmm(bias, x, wt, beta=1, alpha=1):
    assert wt.transposed and beta == 1 and alpha == 1
    return wt.linear(x) + bias


@implements(aten.linear.default)  # under inference_mode, linear arrives whole
def _linear(x, w, bias=None):
    return w.linear(x) if bias is None else w.linear(x) + bias
# --8<-- [end:define]

# --8<-- [start:quantise]
w = torch.tensor([[0.50, -1.00, 0.25, 2.00],
                  [0.10, 0.20, -0.30, 0.05]])
q = Int8WeightTensor.from_float(w)
print(q)
print("qdata:", q.qdata)
print("scale:", q.scale)
print("dequantized:", q.dequantize())
print(f"largest error: {(q.dequantize() - w).abs().max().item():.6f}"
      f" | half a step of row 0: {q.scale[0].item() / 2:.6f}")
# --8<-- [end:quantise]

# --8<-- [start:linear]
class Logged(Int8WeightTensor):
    @classmethod
    def __torch_dispatch__(cls, func, types, args=(), kwargs=None):
        print("    received", func)
        return super().__torch_dispatch__(func, types, args, kwargs)


torch.manual_seed(0)
layer = torch.nn.Linear(64, 32)
x = torch.randn(4, 64)
reference = layer(x)
print("nn.Parameter(...):")
layer.weight = torch.nn.Parameter(Logged.from_float(layer.weight.detach()),
                                  requires_grad=False)
print("weight:", layer.weight, "| a Parameter:",
      isinstance(layer.weight, torch.nn.Parameter))
for name, mode in [("no_grad, 2-D input", torch.no_grad),
                   ("inference_mode", torch.inference_mode)]:
    print(name + ":")
    with mode():
        y = layer(x)
print("3-D input:")
y3 = layer(x.view(2, 2, 64))
print("y3:", tuple(y3.shape), type(y3).__name__, "| requires_grad", y3.requires_grad)
error = (y - reference).abs().max() / reference.abs().max()
print(f"largest error relative to the float32 output: {100 * error:.2f}%"
      " (measured; claim: < 2)")
# --8<-- [end:linear]

# --8<-- [start:backward]
xg = x.clone().requires_grad_()
yg = layer(xg)
print("node:", type(yg.grad_fn).__name__)
yg.sum().backward()
expected = torch.ones(4, 32) @ layer.weight.dequantize()
print("x.grad matches ones @ dequantized W:",
      torch.allclose(xg.grad, expected, atol=1e-5))
print("layer.weight.grad:", layer.weight.grad)
# --8<-- [end:backward]

# --8<-- [start:missing]
for what, call in [("layer.half()", lambda: layer.half()),
                   ("layer.weight * 2", lambda: layer.weight * 2)]:
    try:
        call()
    except NotImplementedError as e:
        print(f"{what}: {e}")

from torch.utils._python_dispatch import return_and_correct_aliasing


def same_storage(a, b):
    return a.untyped_storage()._cdata == b.untyped_storage()._cdata


w8 = Int8WeightTensor.from_float(torch.ones(2, 3))
wt = w8.t()
print("w8.t(): a view of w8 to autograd:", wt._base is w8,
      "| shares w8's storage:", same_storage(wt, w8))
wt = return_and_correct_aliasing(aten.t.default, (w8,), {}, _t(w8))
print("through return_and_correct_aliasing, shares w8's storage:",
      same_storage(wt, w8))
# --8<-- [end:missing]

# --8<-- [start:memory]
import matplotlib.pyplot as plt

torch.manual_seed(0)
big = torch.nn.Linear(4096, 4096)
before = big.weight.nbytes
qweight = Int8WeightTensor.from_float(big.weight.detach())
big.weight = torch.nn.Parameter(qweight, requires_grad=False)
qdata_bytes = qweight.qdata.untyped_storage().nbytes()
scale_bytes = qweight.scale.untyped_storage().nbytes()
print(f"float32 weight:      {before:>12,} bytes")
print(f"int8 qdata:          {qdata_bytes:>12,} bytes")
print(f"float32 scale:       {scale_bytes:>12,} bytes")
print(f"Int8WeightTensor:    {qdata_bytes + scale_bytes:>12,} bytes,"
      f" {before / (qdata_bytes + scale_bytes):.3f}x smaller")
print(f"big.weight.nbytes:   {big.weight.nbytes:>12,} bytes (what the wrapper claims)")

mib = 2**20
held = qdata_bytes + scale_bytes
bars = [("float32 weight", before, f"{before / mib:.2f} MiB held"),
        ("Int8WeightTensor", held,
         f"{qdata_bytes / mib:.2f} + {scale_bytes / mib:.2f} MiB held"),
        ("its .nbytes", big.weight.nbytes,
         f"{big.weight.nbytes / mib:.2f} MiB claimed")]
fig, ax = plt.subplots(figsize=(6.4, 2.4))
for row, (name, size, text) in enumerate(bars):
    claimed = name == "its .nbytes"
    ax.barh(-row, size / mib, color="white" if claimed else ["#0072B2", "#D55E00"][row],
            edgecolor="#595959", hatch="//" if claimed else None)
    ax.text(size / mib + 1, -row, text, va="center")
    print(f"bar {row}: {name:<17} {size / mib:6.2f} MiB ({text})")
ax.set_yticks([0, -1, -2], [name for name, _, _ in bars])
ax.set_xlim(0, 100)
ax.set_xlabel("MiB")
ax.set_title("The weight of nn.Linear(4096, 4096)")
fig.tight_layout()
fig.savefig("int8-weight-bytes.svg")
# --8<-- [end:memory]
