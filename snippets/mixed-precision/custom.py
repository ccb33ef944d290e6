"""Custom code under autocast: custom_fwd/custom_bwd for an autograd.Function, and TF32."""

# --8<-- [start:custom_fn]
import torch

torch.manual_seed(0)


def matmul_function(fwd=lambda f: f, bwd=lambda f: f):
    """A hand-written matmul Function; fwd and bwd decorate its forward and backward."""

    class MatMul(torch.autograd.Function):
        @staticmethod
        @fwd
        def forward(ctx, a, b):
            ctx.save_for_backward(a, b)
            ctx.seen = [f"forward: autocast {torch.is_autocast_enabled('cpu')}"]
            return a @ b

        @staticmethod
        @bwd
        def backward(ctx, grad):
            a, b = ctx.saved_tensors
            grad_a = grad @ b.t()  # float32 b, and grad in whatever dtype the output had
            ctx.seen.append(f"backward: autocast {torch.is_autocast_enabled('cpu')}, "
                            f"grad {grad.dtype}, grad @ b.t() {grad_a.dtype}")
            return grad_a, a.t() @ grad

    return MatMul


variants = {
    "no decorators": matmul_function(),
    "custom_fwd + custom_bwd": matmul_function(
        torch.amp.custom_fwd(device_type="cpu"), torch.amp.custom_bwd(device_type="cpu")
    ),
    "custom_fwd(cast_inputs=float32)": matmul_function(
        torch.amp.custom_fwd(device_type="cpu", cast_inputs=torch.float32),
        torch.amp.custom_bwd(device_type="cpu"),
    ),
}
for name, fn in variants.items():
    a = torch.randn(4, 4, requires_grad=True)
    b = torch.randn(4, 4, requires_grad=True)
    with torch.autocast("cpu", dtype=torch.bfloat16):
        out = fn.apply(a, b)
    print(f"{name}: output {out.dtype}")
    try:
        out.float().sum().backward()  # outside the region, as the autocast docs ask
        print(f"  a.grad {a.grad.dtype}")
    except RuntimeError as e:
        print(f"  RuntimeError: {e}")
    print("  " + "\n  ".join(out.grad_fn.seen))
# --8<-- [end:custom_fn]

# --8<-- [start:tf32_settings]
import warnings  # noqa: E402

backends = torch.backends


def show(when):
    print(f"{when}:")
    print(f"  get_float32_matmul_precision() {torch.get_float32_matmul_precision()!r}")
    print(f"  cuda.matmul.fp32_precision     {backends.cuda.matmul.fp32_precision!r}")
    print(f"  mkldnn.matmul.fp32_precision   {backends.mkldnn.matmul.fp32_precision!r}")
    print(f"  cudnn.conv.fp32_precision      {backends.cudnn.conv.fp32_precision!r}")


show("defaults")
print("  cuda.matmul.allow_tf32 (legacy) ", backends.cuda.matmul.allow_tf32)
print("  cudnn.allow_tf32 (legacy)       ", backends.cudnn.allow_tf32)
for precision in ("high", "medium"):
    torch.set_float32_matmul_precision(precision)
    show(f"set_float32_matmul_precision({precision!r})")
torch.set_float32_matmul_precision("highest")
# --8<-- [end:tf32_settings]

# --8<-- [start:tf32_mixed]
old = backends.cuda.matmul.fp32_precision
backends.cuda.matmul.fp32_precision = "tf32"  # the new setting, for cuBLAS matmuls
readers = {
    "cuda.matmul.allow_tf32": lambda: backends.cuda.matmul.allow_tf32,
    "get_float32_matmul_precision()": torch.get_float32_matmul_precision,
}
for name, read in readers.items():
    try:
        print(f"{name}: {read()}")
    except RuntimeError as e:
        print(f"{name}: RuntimeError: {e}")
backends.cuda.matmul.fp32_precision = old
print(f"set back to {old!r}: get_float32_matmul_precision() {torch.get_float32_matmul_precision()!r}")
# --8<-- [end:tf32_mixed]

# --8<-- [start:tf32_cpu]
torch.manual_seed(0)
a, b = torch.randn(256, 256), torch.randn(256, 256)
highest = a @ b
torch.set_float32_matmul_precision("medium")  # oneDNN may now compute float32 matmuls in bf16
medium = a @ b
torch.set_float32_matmul_precision("highest")
changed = not torch.equal(highest, medium)
print(f"a @ b on this CPU changed under 'medium': {changed} (measured; claim: one of True, False)")
# --8<-- [end:tf32_cpu]
