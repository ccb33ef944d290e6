"""GradScaler: scale the loss, check for inf/NaN, skip the step, grow and back off."""
# --8<-- [start:defaults]
import torch

scaler = torch.amp.GradScaler("cpu")
print("scale:", scaler.get_scale(), " growth_factor:", scaler.get_growth_factor(),
      " backoff_factor:", scaler.get_backoff_factor(), " growth_interval:", scaler.get_growth_interval())
# --8<-- [end:defaults]

# --8<-- [start:check]
grads = [torch.tensor([2.0, 4.0]), torch.tensor([float("inf"), 8.0])]
found_inf = torch.zeros(1)
inv_scale = torch.full((1,), 0.5)
torch._amp_foreach_non_finite_check_and_unscale_(grads, found_inf, inv_scale)
print("unscaled in place:", [g.tolist() for g in grads], " found_inf:", found_inf.item())
# --8<-- [end:check]

# --8<-- [start:steps]
torch.manual_seed(0)
model = torch.nn.Linear(4, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
scaler = torch.amp.GradScaler("cpu", init_scale=8.0, growth_interval=2)
x = torch.randn(3, 4)
print("step  scale  found_inf  weights changed  scale after update")
for step in range(6):
    opt.zero_grad()
    with torch.autocast("cpu", dtype=torch.bfloat16):
        loss = model(x).float().mean()
    if step == 3:
        loss = loss * float("inf")                  # one overflowing batch
    scaler.scale(loss).backward()
    before = model.weight.detach().clone()
    scale = scaler.get_scale()
    scaler.step(opt)                                # unscale_, check, maybe optimizer.step()
    found = sum(v.item() for v in scaler._found_inf_per_device(opt).values())
    changed = not torch.equal(before, model.weight)
    scaler.update()
    print(f"{step:>4}  {scale:>5}  {found:>9}  {changed!s:>15}  {scaler.get_scale():>18}")
# --8<-- [end:steps]

# --8<-- [start:fused]
for fused in (False, True):
    torch.manual_seed(0)
    model = torch.nn.Linear(4, 1)
    opt = torch.optim.Adam(model.parameters(), lr=0.1, fused=fused)
    calls = []
    opt.register_step_pre_hook(lambda *args: calls.append("step"))  # runs as step() starts
    scaler = torch.amp.GradScaler("cpu", init_scale=8.0)
    scaler.scale(model(torch.randn(3, 4)).mean() * float("inf")).backward()  # overflows
    before = model.weight.detach().clone()
    scaler.step(opt)
    adam_steps = opt.state[model.weight]["step"].item() if opt.state else None
    print(f"Adam(fused={fused}): optimizer.step() called {len(calls)} time(s), "
          f"weights changed {not torch.equal(before, model.weight)}, Adam's step count {adam_steps}")
# --8<-- [end:fused]

# --8<-- [start:rescue]
def weight_grad(fp16, use_scaler):
    torch.manual_seed(0)
    net = torch.nn.Linear(16, 16)
    inp = torch.randn(4, 16)
    scaler = torch.amp.GradScaler("cpu", enabled=use_scaler)   # enabled=False: a no-op
    with torch.autocast("cpu", dtype=torch.float16, enabled=fp16):
        loss = net(inp).float().mean() * 1e-6        # a loss whose gradients are tiny
    scaler.scale(loss).backward()
    scaler.unscale_(torch.optim.SGD(net.parameters(), lr=0.1))
    return net.weight.grad


for label, g in [("fp16, no scaler", weight_grad(True, False)),
                 ("fp16 + GradScaler", weight_grad(True, True)),
                 ("fp32 reference", weight_grad(False, False))]:
    print(f"{label:<18} nonzero grads: {int((g != 0).sum()):>3}/256  "
          f"grad norm: {g.norm().item():.3e}")
# --8<-- [end:rescue]
