"""Tensor hooks: register_hook and register_post_accumulate_grad_hook."""
# --8<-- [start:tensor_hooks]
import torch

torch.manual_seed(0)
x = torch.randn(3, requires_grad=True)
h = x * 2
out = (h * h).sum()


def on_h(grad):                     # runs when the gradient w.r.t. h is computed
    print("hook on h   : grad =", grad)
    return grad.clamp(max=1.0)      # a returned tensor replaces the gradient


def on_x(grad):                     # on a leaf: runs before accumulation into x.grad
    print("hook on x   : grad =", grad, "| x.grad still", x.grad)


def after_acc(param):               # leaf only: runs after x.grad was written
    print("post-acc    : x.grad =", param.grad)


handle = h.register_hook(on_h)
x.register_hook(on_x)
x.register_post_accumulate_grad_hook(after_acc)
out.backward()
handle.remove()
# --8<-- [end:tensor_hooks]

# --8<-- [start:step_in_backward]
torch.manual_seed(0)
lin = torch.nn.Linear(4, 2)
before = lin.weight.detach().clone()


def sgd_step(p, lr=0.1):            # optimizer step fused into backward, grad freed at once
    with torch.no_grad():
        p.sub_(lr * p.grad)
    p.grad = None


for p in lin.parameters():
    p.register_post_accumulate_grad_hook(sgd_step)
lin(torch.randn(8, 4)).pow(2).mean().backward()
print("weight moved:", not torch.equal(before, lin.weight), "| weight.grad:", lin.weight.grad)
# --8<-- [end:step_in_backward]
