"""Mistakes readers make with autocast and GradScaler, each reproduced, with the fix."""
# --8<-- [start:one_region]
import torch
import torch.nn.functional as F


def train(one_region_for_all_steps):
    torch.manual_seed(0)
    model = torch.nn.Linear(4, 1)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    x, target = torch.randn(8, 4), torch.randn(8, 1)
    losses = []
    region = torch.autocast("cpu", dtype=torch.bfloat16)
    if one_region_for_all_steps:
        region.__enter__()                      # as `with autocast():` around the loop
    for _ in range(4):
        opt.zero_grad()
        with torch.autocast("cpu", dtype=torch.bfloat16):
            out = model(x)
        loss = F.mse_loss(out.float(), target)
        loss.backward()
        opt.step()
        losses.append(round(loss.item(), 4))
    if one_region_for_all_steps:
        region.__exit__(None, None, None)
    return losses


print("region around the forward:  ", train(False))
print("region around the whole loop:", train(True))
# --8<-- [end:one_region]

# --8<-- [start:no_scale]
torch.manual_seed(0)
model = torch.nn.Linear(4, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
x = torch.randn(8, 4)
scaler = torch.amp.GradScaler("cpu")
model(x).mean().backward()                      # forgot scaler.scale(...)
try:
    scaler.step(opt)
except AssertionError as e:
    print("first step:", e)

scaler.scale(model(x).mean()).backward()        # a correct step ...
scaler.step(opt)
scaler.update()
opt.zero_grad()
model(x).mean().backward()                      # ... then the same mistake again
true_grad = model.weight.grad.clone()
scaler.step(opt)                                # no error this time
scaler.update()
ratio = (model.weight.grad / true_grad).mean().item()
print(f"later step: gradient used = true gradient / {1 / ratio:.0f}; scale was {scaler.get_scale():.0f}")
# --8<-- [end:no_scale]

# --8<-- [start:unscale_twice]
opt.zero_grad()
scaler.scale(model(x).mean()).backward()
scaler.unscale_(opt)
try:
    scaler.unscale_(opt)                        # e.g. once for clipping, once for logging
except RuntimeError as e:
    print(e)
scaler.step(opt)                                # step() does not unscale a second time
scaler.update()
# --8<-- [end:unscale_twice]

# --8<-- [start:clip]
def clipped_grad_norm(unscale_first):
    torch.manual_seed(0)
    net = torch.nn.Linear(16, 16)
    optimizer = torch.optim.SGD(net.parameters(), lr=0.1)
    scaler = torch.amp.GradScaler("cpu")
    with torch.autocast("cpu", dtype=torch.bfloat16):
        loss = net(torch.randn(4, 16)).float().pow(2).mean()
    scaler.scale(loss).backward()
    if unscale_first:
        scaler.unscale_(optimizer)
    seen = torch.nn.utils.clip_grad_norm_(net.parameters(), max_norm=1.0).item()
    scaler.step(optimizer)                      # unscales now if not done before
    used = torch.cat([p.grad.flatten() for p in net.parameters()]).norm().item()
    return seen, used


for unscale_first in (False, True):
    seen, used = clipped_grad_norm(unscale_first)
    print(f"unscale_ first: {unscale_first!s:<5}  norm clip saw: {seen:>9.4g}  "
          f"norm of the step's gradient: {used:.3g}")
# --8<-- [end:clip]

# --8<-- [start:dtype]
with torch.autocast("cpu", dtype=torch.bfloat16):
    out = model(x)
print("out.dtype == torch.float32:", out.dtype == torch.float32, f"({out.dtype})")
try:
    out.detach().numpy()
except TypeError as e:
    print("numpy():", e)
try:
    torch.testing.assert_close(out, model(x))   # model(x) outside autocast: fp32
except AssertionError as e:
    print("assert_close:", str(e).splitlines()[0])
print("fix: out.float() ->", out.float().dtype, "; numpy:", out.detach().float().numpy().dtype)
# --8<-- [end:dtype]

# --8<-- [start:inplace]
running = torch.zeros(8, 1)                     # an fp32 buffer, e.g. for a running total
with torch.autocast("cpu", dtype=torch.bfloat16):
    out = model(x).detach()
    try:
        running[torch.arange(8)] = out          # index_put_ does not promote
    except RuntimeError as e:
        print(e)
    total = out.clone()
    for _ in range(100):
        total += 0.01                           # in place: stays bfloat16
    print("bf16 in-place sum of 100 x 0.01:", round((total - out)[0].item(), 4))
    total = out.float()
    for _ in range(100):
        total += 0.01
    print("fp32 after .float():            ", round((total - out.float())[0].item(), 4))
# --8<-- [end:inplace]
