"""Transforms as levels: the interpreter stack, the wrappers it puts around a tensor."""
# ruff: noqa: E402  (each region is a block of the page; its imports open it)
import torch

torch.manual_seed(0)
torch.set_num_threads(1)

# --8<-- [start:stack]
import torch
import torch._C._functorch as functorch_c
from torch.func import grad, hessian, jacfwd, jacrev, vmap


def stack():
    """The interpreter stack, bottom first: one entry per active transform."""
    interpreters = functorch_c.get_interpreter_stack() or []
    return " > ".join(f"{i.key().name}({i.level()})" for i in interpreters) or "(empty)"


def f(x):
    print(f"  f runs under:          {stack()}")
    y = x.sin()
    if y.requires_grad:  # a hook on y runs when the backward pass reaches it
        y.register_hook(lambda g: print(f"  backward of sin under: {stack()}"))
    return (y * x).sum()


x = torch.tensor([0.5, 1.0, 2.0])
print("f itself:")
f(x)
for name, transform in [("grad", grad), ("jacrev", jacrev), ("jacfwd", jacfwd),
                        ("hessian", hessian),
                        ("vmap(grad)", lambda fn: vmap(grad(fn)))]:
    print(f"{name}(f):")
    transform(f)(x.expand(2, 3) if name.startswith("vmap") else x)
# --8<-- [end:stack]

# --8<-- [start:wrappers]
from torch.func import functionalize


def key_of(t):
    """The wrapper's own key, read from its key set (a plain tensor: its backend)."""
    keys = torch._C._dispatch_keys(t)
    for name in ["Functionalize", "FuncTorchGradWrapper", "FuncTorchBatched", "CPU"]:
        if keys.has(getattr(torch._C.DispatchKey, name)):
            return name
    return str(keys)


def layers(t):
    """Peel a tensor one wrapper at a time: (class, level, batch dim, key, shape)."""
    found = []
    while functorch_c.is_functorch_wrapped_tensor(t):
        if functorch_c.is_batchedtensor(t):
            kind = "BatchedTensor"
        elif functorch_c.is_gradtrackingtensor(t):
            kind = "TensorWrapper"
        else:
            kind = "FunctionalTensorWrapper"
        level, bdim = functorch_c.maybe_get_level(t), functorch_c.maybe_get_bdim(t)
        found.append((kind, level, bdim, key_of(t), tuple(t.shape)))
        t = functorch_c.get_unwrapped(t)
    found.append(("Tensor", None, None, key_of(t), tuple(t.shape)))
    return found


def inspect(x):
    global seen
    seen = layers(x)
    print("interpreter stack:", stack())
    for kind, level, bdim, key, shape in seen:
        where = "" if level is None else f"level {level}, "
        where += "" if bdim in (None, -1) else f"batch dim {bdim}, "
        print(f"  {kind:24} {where}key {key}, shape {shape}")
    print("thread-local include set:", torch._C._dispatch_tls_local_include_set())
    return x.sin().sum()


print("outside any transform:", torch._C._dispatch_tls_local_include_set())
print("vmap(grad(functionalize(inspect)))(xs):")
xs = torch.tensor([[0.5, 1.0, 2.0], [1.5, 2.5, 3.5]])
vmap(grad(functionalize(inspect)))(xs)
# --8<-- [end:wrappers]

# --8<-- [start:kernels]
def kernel_at(op, key):
    """The file and kind of the kernel at one key of an operator's dispatch table."""
    for line in torch._C._dispatch_dump_table(op).splitlines():
        if line.startswith(f"{key}: "):
            source, kind = line.split(" [")
            return f"{source.rsplit('/', 1)[1].split(':')[0]} [{kind}"
    return None


print("aten::sin, from the highest key down:")
for key in ["FuncTorchDynamicLayerFrontMode", "FuncTorchGradWrapper",
            "FuncTorchBatched", "AutogradCPU", "Functionalize",
            "FuncTorchDynamicLayerBackMode"]:
    print(f"  {key:31} {kernel_at('aten::sin', key)}")
# --8<-- [end:kernels]

# --8<-- [start:draw]
import matplotlib.pyplot as plt
from matplotlib.patches import FancyBboxPatch

colours = {"Functionalize": "#009E73", "FuncTorchGradWrapper": "#D55E00",
           "FuncTorchBatched": "#0072B2", "CPU": "#595959"}
fig, ax = plt.subplots(figsize=(6.4, 3.8))
top, band, inset = 4.0, 0.8, 0.3  # each box holds the next one, one band lower
for depth, (kind, level, bdim, key, shape) in enumerate(seen):  # outermost first
    x0, y_top = inset * depth, top - band * depth
    ax.add_patch(FancyBboxPatch((x0, 0.12 * depth), 6.4 - 2 * x0, y_top - 0.12 * depth,
                                boxstyle="round,pad=0,rounding_size=0.08",
                                facecolor="white", edgecolor=colours[key], linewidth=2))
    title = kind if level is None else f"{kind}, level {level}"
    detail = f"key {key}, shape {shape}"
    if bdim not in (None, -1):
        detail += f", batch dim {bdim}"
    ax.text(x0 + 0.15, y_top - 0.1, f"{title}\n{detail}", ha="left", va="top",
            fontsize=8.5, color=colours[key], linespacing=1.3)
ax.set_xlim(-0.05, 6.45)
ax.set_ylim(-0.05, top + 0.05)
ax.axis("off")
ax.set_title("The input as f sees it under vmap(grad(functionalize(f)))", fontsize=10)
fig.savefig("func-levels.svg")
for kind, level, bdim, key, shape in seen:
    print(f"{kind}: level {level}, batch dim {bdim}, key {key}, shape {shape}")
# --8<-- [end:draw]

# --8<-- [start:escape]
kept = []


def keep(x):
    kept.append(x)  # a reference that outlives the transform
    return x.sin().sum()


grad(keep)(torch.tensor([1.0, 2.0]))
wrapper = kept.pop()
print("escaped from grad:", functorch_c.is_dead_tensor_wrapper(wrapper),
      "(dead) | level:", functorch_c.maybe_get_level(wrapper),
      "| wrapper + 1 =", wrapper + 1)
print("  printed as:", " ".join(repr(wrapper).split()))

vmap(keep)(torch.arange(6.0).reshape(3, 2))
batched = kept.pop()
print("escaped from vmap: level", functorch_c.maybe_get_level(batched),
      "| shape", tuple(batched.shape))
try:
    batched + 1
except RuntimeError as e:
    print("batched + 1: RuntimeError:", e)
later = vmap(lambda row: row + batched)(torch.zeros(3, 2))  # a new vmap: level 1 again
print("inside a later vmap, no error:", later.tolist())
# --8<-- [end:escape]
