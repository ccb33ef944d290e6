"""functional_call: a module as a function of its parameters; per-sample grads."""
# ruff: noqa: E402  (each region is a block of the page; its imports open it)
import torch

torch.manual_seed(0)
torch.set_num_threads(1)

# --8<-- [start:functional_call]
import torch
from torch import nn
from torch.func import functional_call


class Scale(nn.Module):
    def __init__(self):
        super().__init__()
        self.w = nn.Parameter(torch.ones(2))

    def forward(self, x):
        print("  during the call: self.w is", type(self.w).__name__, self.w.tolist())
        return x * self.w


m = Scale()
out = functional_call(m, {"w": torch.tensor([5.0, 6.0])}, (torch.ones(2),))
print("result:", out.tolist())
print("after the call: self.w is", type(m.w).__name__, m.w.tolist())
# --8<-- [end:functional_call]

# --8<-- [start:per_sample]
from torch.func import grad, vmap

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(8, 16), nn.Tanh(), nn.Linear(16, 1))
params = {name: p.detach() for name, p in model.named_parameters()}
xs, ys = torch.randn(32, 8), torch.randn(32, 1)


def example_loss(params, x, y):  # one example: add the batch dim the module expects
    pred = functional_call(model, params, (x.unsqueeze(0),))
    return nn.functional.mse_loss(pred, y.unsqueeze(0))


per_sample = vmap(grad(example_loss), in_dims=(None, 0, 0))(params, xs, ys)
print({name: tuple(g.shape) for name, g in per_sample.items()})


def loop():  # the same, one backward pass per example
    grads = []
    for x, y in zip(xs, ys, strict=True):
        model.zero_grad()
        nn.functional.mse_loss(model(x.unsqueeze(0)), y.unsqueeze(0)).backward()
        grads.append({name: p.grad.clone() for name, p in model.named_parameters()})
    return {name: torch.stack([g[name] for g in grads]) for name in params}


looped = loop()
print("same as a loop of backward passes:",
      all(torch.allclose(per_sample[n], looped[n], atol=1e-6) for n in params))


def batch_loss(params):
    return nn.functional.mse_loss(functional_call(model, params, (xs,)), ys)


print("their mean is the batch gradient:", torch.allclose(
    per_sample["0.weight"].mean(0), grad(batch_loss)(params)["0.weight"], atol=1e-6))
# --8<-- [end:per_sample]

# --8<-- [start:per_sample_speed]
import statistics
import time


def seconds(fn, repeats=7):
    """Median CPU seconds of this thread for one call of fn (one warm-up call first)."""
    fn()
    times = []
    for _ in range(repeats):
        start = time.thread_time()
        fn()
        times.append(time.thread_time() - start)
    return statistics.median(times)


per_sample_grads = vmap(grad(example_loss), in_dims=(None, 0, 0))
vmapped = seconds(lambda: per_sample_grads(params, xs, ys))
print(f"32 backward passes / one vmap(grad): {seconds(loop) / vmapped:.1f}x "
      "(measured; claim: > 2)")
# --8<-- [end:per_sample_speed]

# --8<-- [start:ensemble]
from torch.func import stack_module_state

torch.manual_seed(0)
members = [nn.Linear(3, 2) for _ in range(4)]
stacked_params, stacked_buffers = stack_module_state(members)
print({name: tuple(p.shape) for name, p in stacked_params.items()},
      "| buffers:", stacked_buffers)
skeleton = nn.Linear(3, 2, device="meta")  # only the structure: no data


def run_member(params, buffers, x):
    return functional_call(skeleton, (params, buffers), (x,))


x = torch.randn(5, 3)
outs = vmap(run_member, in_dims=(0, 0, None))(stacked_params, stacked_buffers, x)
print("outputs:", tuple(outs.shape),
      "| member 2 as itself:", torch.allclose(outs[2], members[2](x)))
# --8<-- [end:ensemble]

# --8<-- [start:batch_norm]
from torch.func import replace_all_batch_norm_modules_

torch.manual_seed(0)
bn_model = nn.Sequential(nn.Linear(4, 3), nn.BatchNorm1d(3))  # in training mode
bn_params = {name: p.detach() for name, p in bn_model.named_parameters()}
batches = torch.randn(8, 2, 4)  # 8 small batches of 2 rows, one per vmapped call


def loss_of_batch(params, batch):
    return functional_call(bn_model, params, (batch,)).pow(2).mean()


per_batch = vmap(grad(loss_of_batch), in_dims=(None, 0))
try:
    per_batch(bn_params, batches)
except RuntimeError as e:
    print("RuntimeError:", e)
print("buffers before:", [name for name, _ in bn_model.named_buffers()])
replace_all_batch_norm_modules_(bn_model)  # stop tracking running statistics
print("buffers after: ", [name for name, _ in bn_model.named_buffers()])
print({name: tuple(g.shape) for name, g in per_batch(bn_params, batches).items()})
# --8<-- [end:batch_norm]
