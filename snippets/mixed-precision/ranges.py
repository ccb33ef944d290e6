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

# --8<-- [start:draw_ranges]
import matplotlib.pyplot as plt

values = torch.logspace(-10, 6, 641, dtype=torch.float64)   # 40 values a decade, 1e-10 to 1e6
fig, ax = plt.subplots(figsize=(6.4, 3.4))
for dt, colour in ((torch.float16, "#C05400"), (torch.bfloat16, "#0072B2")):
    back = values.to(dt).to(torch.float64)
    error = (back - values).abs() / values                  # relative error of one cast
    finite, kept = back.isfinite(), back != 0
    normal = finite & (values >= torch.finfo(dt).smallest_normal)
    name = str(dt).removeprefix("torch.")
    print(f"{name}: worst relative error of a normal value {error[normal].max().item():.2g};",
          f"of the {len(values)} values, the smallest not flushed to 0 {values[kept][0].item():.2g},",
          f"the largest still finite {values[finite][-1].item():.3g}")
    shown = error.where(finite & (error > 0), torch.nan).clamp(min=1e-6)
    ax.plot(values, shown, color=colour, linewidth=1.2, label=name)
    if not finite.all():
        ax.axvspan(values[finite][-1].item(), values[-1].item(), color=colour, alpha=0.12)
        ax.text(2e5, 1.5e-6, "float16:\ninf", color="black", ha="center", va="bottom", fontsize=9)
ax.set_xscale("log")
ax.set_yscale("log")
ax.set_ylim(1e-6, 3)
ax.set_xlabel("value cast from float64")
ax.set_ylabel("relative error of the cast")
ax.legend(loc="upper right")
ax.spines[["top", "right"]].set_visible(False)
fig.savefig("fp16-bf16-range.svg")
# --8<-- [end:draw_ranges]
