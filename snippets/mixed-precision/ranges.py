"""fp16 against bf16: range, overflow, underflow."""
# --8<-- [start:finfo]
import torch

print(f"{'dtype':<9} {'max':>10} {'smallest normal':>16} {'eps':>10}  exponent/mantissa bits")
for dt, bits in [(torch.float16, "5/10"), (torch.bfloat16, "8/7"), (torch.float32, "8/23")]:
    f = torch.finfo(dt)
    print(f"{str(dt).removeprefix('torch.'):<9} {f.max:>10.3g} {f.smallest_normal:>16.3g} {f.eps:>10.3g}  {bits}")
# --8<-- [end:finfo]

# --8<-- [start:overflow]
torch.manual_seed(0)
act = torch.full((4, 64), 40.0)                 # activations of a poorly scaled layer
w = torch.full((64, 4), 40.0)
for dt in (torch.float16, torch.bfloat16):
    with torch.autocast("cpu", dtype=dt):
        out = act @ w                           # 64 * 40 * 40 = 102400 in exact arithmetic
    name = str(dt).removeprefix("torch.")
    print(f"{name:<9} out[0, 0] = {out[0, 0].item():<8} finite: {out.isfinite().all().item()}")
# --8<-- [end:overflow]

# --8<-- [start:underflow]
def show(label, t):
    print(f"{label:<36}", "  ".join(f"{v:<9.3g}" for v in t.tolist()))


grads = torch.tensor([1e-3, 1e-5, 1e-7, 1e-9])
show("fp32 gradients:", grads)
show("cast to fp16:", grads.half())
show("cast to bf16:", grads.bfloat16())
scale = 65536.0
show("x 2**16, to fp16, back, / 2**16:", (grads * scale).half().float() / scale)
# --8<-- [end:underflow]
