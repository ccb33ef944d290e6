"""Loss is NaN or the scaler keeps skipping steps under mixed precision."""
# --8<-- [start:skipping]
import torch
import torch.nn.functional as F


def run(dtype, x_scale, steps=4):
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(64, 64), torch.nn.Linear(64, 1))
    opt = torch.optim.SGD(model.parameters(), lr=1e-3)
    scaler = torch.amp.GradScaler("cpu")
    x = torch.randn(16, 64) * x_scale           # x_scale 1e5: unnormalised inputs
    target = torch.randn(16, 1)
    for step in range(steps):
        opt.zero_grad()
        with torch.autocast("cpu", dtype=dtype):
            hidden = model[0](x)
            loss = F.mse_loss(model[1](hidden).float(), target)
        before = model[1].weight.detach().clone()
        scaler.scale(loss).backward()
        scaler.step(opt)
        scaler.update()
        print(f"  step {step}: loss {loss.item():<9.4g} hidden all finite: "
              f"{hidden.isfinite().all().item()!s:<5} stepped: "
              f"{not torch.equal(before, model[1].weight)!s:<5} scale now: {scaler.get_scale():g}")


print("float16, raw inputs:")
run(torch.float16, x_scale=1e5)
# --8<-- [end:skipping]

# --8<-- [start:fix]
print("float16, inputs normalised:")
run(torch.float16, x_scale=1.0)
print("bfloat16, raw inputs:")
run(torch.bfloat16, x_scale=1e5, steps=2)
# --8<-- [end:fix]
