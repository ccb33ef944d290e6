"""grad, vjp, jacrev, jacfwd and hessian: transforms that return functions."""
# ruff: noqa: E402  (each region is a block of the page; its imports open it)
import torch

torch.manual_seed(0)
torch.set_num_threads(1)

# --8<-- [start:grad]
import torch
from torch.func import grad, grad_and_value


def loss(w, x):
    return ((x @ w) ** 2).sum()


w = torch.tensor([0.5, -1.0, 2.0])
x = torch.tensor([[1.0, 2.0, 3.0], [0.0, 1.0, -1.0]])

dw = grad(loss)(w, x)  # with respect to argument 0, the default
w_leaf = w.clone().requires_grad_()
(expected,) = torch.autograd.grad(loss(w_leaf, x), w_leaf)
print("grad(loss)(w, x):", dw.tolist(),
      "| same as autograd.grad:", torch.allclose(dw, expected))
print("w.requires_grad:", w.requires_grad, "| w.grad:", w.grad,
      "| dw.grad_fn:", dw.grad_fn)
dw, dx = grad(loss, argnums=(0, 1))(w, x)
print("argnums=(0, 1): shapes", tuple(dw.shape), tuple(dx.shape))
g, value = grad_and_value(loss)(w, x)
print("grad_and_value: value", value.item(),
      "| == loss(w, x):", torch.equal(value, loss(w, x)))
print("an argument f ignores:", grad(lambda w, x: x.sum())(w, x).tolist())
try:
    grad(lambda w: x @ w)(w)
except RuntimeError as e:
    print("non-scalar output: RuntimeError:", e)
# --8<-- [end:grad]

# --8<-- [start:no_grad]
def partly_constant(w):
    with torch.no_grad():  # inside the function: this part is a constant
        c = w ** 2
    return (w - c).sum()


print("grad:", grad(partly_constant)(w).tolist(),
      "| without the no_grad, 1 - 2w:", (1 - 2 * w).tolist())
with torch.no_grad():  # around the transform: ignored
    print("grad under an outer no_grad:", grad(partly_constant)(w).tolist())
    w_leaf = w.clone().requires_grad_()
    print("plain autograd under the same no_grad: requires_grad =",
          partly_constant(w_leaf).requires_grad)
# --8<-- [end:no_grad]

# --8<-- [start:jacobians]
from torch.func import hessian, jacfwd, jacrev


def f(v):  # R^3 -> R^2
    return torch.stack([v[0] * v[1], v[1].sin() + v[2] ** 2])


v = torch.tensor([1.0, 2.0, 3.0])
J_rev, J_fwd = jacrev(f)(v), jacfwd(f)(v)
J_ref = torch.autograd.functional.jacobian(f, v)
print("jacrev:", [[round(e, 4) for e in row] for row in J_rev.tolist()])
print("shape (outputs, inputs):", tuple(J_rev.shape),
      "| jacfwd equal:", torch.allclose(J_rev, J_fwd),
      "| autograd.functional.jacobian equal:", torch.allclose(J_rev, J_ref))


def energy(v):  # R^3 -> R
    return (v[0] * v[1] * v[2]) + v.pow(3).sum()


H = hessian(energy)(v)
print("hessian:", H.tolist())
print("== jacfwd(jacrev(energy)):", torch.allclose(H, jacfwd(jacrev(energy))(v)),
      "| == jacrev(jacrev(energy)):", torch.allclose(H, jacrev(jacrev(energy))(v)))
# --8<-- [end:jacobians]

# --8<-- [start:which_mode]
import statistics
import time


def seconds(fn, repeats=5):
    """Median CPU seconds of this thread for one call of fn (one warm-up call first)."""
    fn()
    times = []
    for _ in range(repeats):
        start = time.thread_time()
        fn()
        times.append(time.thread_time() - start)
    return statistics.median(times)


W = torch.randn(2, 2000)


def wide(v):  # R^2000 -> R^2: many inputs, few outputs
    return W @ v.tanh()


def tall(u):  # R^2 -> R^2000: few inputs, many outputs
    return (W.T @ u).tanh()


v_wide, u_tall = torch.randn(2000), torch.randn(2)
print("same Jacobians:", torch.allclose(jacrev(wide)(v_wide), jacfwd(wide)(v_wide)),
      torch.allclose(jacrev(tall)(u_tall), jacfwd(tall)(u_tall), atol=1e-6))
ratio = seconds(lambda: jacfwd(wide)(v_wide)) / seconds(lambda: jacrev(wide)(v_wide))
print(f"wide, jacfwd / jacrev: {ratio:.0f}x (measured; claim: > 3)")
ratio = seconds(lambda: jacrev(tall)(u_tall)) / seconds(lambda: jacfwd(tall)(u_tall))
print(f"tall, jacrev / jacfwd: {ratio:.0f}x (measured; claim: > 3)")
# --8<-- [end:which_mode]
