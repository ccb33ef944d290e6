"""Activation memory measured with saved-tensor hooks; no_grad; checkpointing; fake tensors."""
import torch
from torch import nn

# --8<-- [start:saved_hooks]
from torch.multiprocessing.reductions import StorageWeakRef
from torch.utils.checkpoint import checkpoint


def saved_bytes(fn, module):
    """Run fn() and add up the storages autograd saves for backward (parameters excluded)."""
    params = {StorageWeakRef(p.untyped_storage()) for p in module.parameters()}
    saved = {}

    def pack(t):                            # called once for every tensor autograd saves
        key = StorageWeakRef(t.untyped_storage())
        if key not in params:
            saved[key] = t.untyped_storage().nbytes()
        return t                            # keep the tensor itself: behaviour unchanged

    with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        out = fn()
    return out, len(saved), sum(saved.values())


class CountedGELU(nn.GELU):
    runs = 0

    def forward(self, x):
        CountedGELU.runs += 1
        return super().forward(x)


torch.manual_seed(0)
blocks = nn.Sequential(*[
    nn.Sequential(nn.Linear(512, 2048), CountedGELU(), nn.Linear(2048, 512)) for _ in range(4)
])
x = torch.randn(64, 512)

out, n, nbytes = saved_bytes(lambda: blocks(x), blocks)
print(f"plain:      {n} storages saved, {nbytes:,} bytes")
out.sum().backward()
grads_plain = [p.grad.clone() for p in blocks.parameters()]
print("GELU forwards run:", CountedGELU.runs)
# --8<-- [end:saved_hooks]

# --8<-- [start:meter_blind_spot]
class SinSaved(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)  # through SavedVariable: the pack hook sees it
        return x.sin()

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return grad * x.cos()


class SinKept(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.kept = x  # a plain attribute of ctx: the pack hook does not
        return x.sin()

    @staticmethod
    def backward(ctx, grad):
        return grad * ctx.kept.cos()


act_in = torch.randn(64, 2048, requires_grad=True)  # 524,288 bytes
for fn in (SinSaved, SinKept):
    _, n, nbytes = saved_bytes(lambda: fn.apply(act_in), blocks)
    print(f"{fn.__name__}: {n} storages saved, {nbytes:,} bytes")
# --8<-- [end:meter_blind_spot]

# --8<-- [start:saved_no_grad]
with torch.no_grad():
    out, n, nbytes = saved_bytes(lambda: blocks(x), blocks)
print(f"no_grad:    {n} storages saved, {nbytes:,} bytes; out.requires_grad={out.requires_grad}")
with torch.inference_mode():
    out, n, nbytes = saved_bytes(lambda: blocks(x), blocks)
print(f"inference:  {n} storages saved, {nbytes:,} bytes; out.is_inference()={out.is_inference()}")
# --8<-- [end:saved_no_grad]

# --8<-- [start:inference_targets]
teacher_out = out                           # made under inference_mode just above
student = nn.Linear(512, 512)


def try_step(label, loss_fn):
    try:
        loss_fn().backward()
        print(f"{label}: works")
    except RuntimeError as e:
        print(f"{label}: RuntimeError: {e}")


try_step("(student(x) - teacher_out).pow(2).mean()",
         lambda: (student(x) - teacher_out).pow(2).mean())      # sub saves neither input
try_step("F.mse_loss(student(x), teacher_out)",
         lambda: nn.functional.mse_loss(student(x), teacher_out))   # saves its target
try_step("F.mse_loss(student(x), teacher_out.clone())",
         lambda: nn.functional.mse_loss(student(x), teacher_out.clone()))
try_step("teacher_out.mul_(0.5) outside the mode",
         lambda: teacher_out.mul_(0.5).sum())
# --8<-- [end:inference_targets]

# --8<-- [start:no_grad_targets]
with torch.no_grad():
    teacher_out = blocks(x)                 # an ordinary tensor: no graph, a version counter
try_step("F.mse_loss(student(x), teacher_out) after no_grad",
         lambda: nn.functional.mse_loss(student(x), teacher_out))
_, n, nbytes = saved_bytes(lambda: nn.functional.mse_loss(student(x), teacher_out), student)
print(f"that loss saves {n} storages, {nbytes:,} bytes (parameters excluded)")
# --8<-- [end:no_grad_targets]

# --8<-- [start:saved_checkpoint]
def checkpointed(x):
    for block in blocks:
        x = checkpoint(block, x, use_reentrant=False)
    return x


blocks.zero_grad(set_to_none=True)
CountedGELU.runs = 0
out, n, nbytes = saved_bytes(lambda: checkpointed(x), blocks)
print(f"checkpoint: {n} storages saved, {nbytes:,} bytes")
out.sum().backward()
print("GELU forwards run:", CountedGELU.runs)
print("same gradients:", all(torch.equal(a, p.grad) for a, p in zip(grads_plain, blocks.parameters())))
# --8<-- [end:saved_checkpoint]

# --8<-- [start:timeline]
import matplotlib.pyplot as plt

params = {StorageWeakRef(p.untyped_storage()) for p in blocks.parameters()}
saved = {}                                  # storage -> bytes, every activation autograd saved
timeline = []                               # (phase, what ran, bytes of saved activations alive)


def alive():
    return sum(size for key, size in saved.items() if not key.expired())


def pack(t):
    key = StorageWeakRef(t.untyped_storage())
    if key not in params:
        saved[key] = t.untyped_storage().nbytes()
        timeline.append(("forward", "saved", alive()))
    return t


blocks.zero_grad(set_to_none=True)
with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
    out = blocks(x)
# A pre-hook on every node reads, as backward reaches it, what the nodes before it left saved.
nodes, stack = set(), [out.grad_fn]
while stack:
    node = stack.pop()
    if node is not None and node not in nodes:
        nodes.add(node)
        stack += [next_node for next_node, _ in node.next_functions]
for node in nodes:
    node.register_prehook(lambda grads, node=node: timeline.append(("backward", node.name(), alive())))
out.sum().backward()
timeline.append(("backward", "done", alive()))

forward_steps = sum(phase == "forward" for phase, _, _ in timeline)
print(f"forward: {forward_steps} activations saved, {timeline[forward_steps - 1][2]:,} bytes at the end")
print(f"backward: {len(timeline) - forward_steps - 1} nodes ran; saved activations still alive:",
      f"{timeline[-1][2]:,} bytes")
steps = range(len(timeline))
fig, ax = plt.subplots(figsize=(6.4, 3.2))
ax.step(steps, [b / 2**20 for _, _, b in timeline], where="post", color="#0072B2", linewidth=2)
ax.axvspan(-0.5, forward_steps - 0.5, color="#0072B2", alpha=0.08)
ax.text(forward_steps / 2, 5.9, "forward: each saved\nactivation adds to it", ha="center", va="top")
ax.text((forward_steps + len(timeline)) / 2, 5.9, "backward: each node frees\nwhat it saved", ha="center",
        va="top")
ax.set_ylim(0, 6)
ax.set_xlabel("step: a tensor saved (forward), a node run (backward)")
ax.set_ylabel("saved activations alive (MiB)")
ax.spines[["top", "right"]].set_visible(False)
fig.savefig("activation-timeline.svg")
# --8<-- [end:timeline]

# --8<-- [start:fake_forward]
from torch._subclasses.fake_tensor import FakeTensorMode

with FakeTensorMode():                      # tensors carry shape/dtype/device, no memory
    layer = nn.TransformerEncoderLayer(d_model=1024, nhead=16, dim_feedforward=4096,
                                       batch_first=True)
    tokens = torch.randn(8, 512, 1024)
    y, n, nbytes = saved_bytes(lambda: layer(tokens), layer)
print("output:", type(y).__name__, tuple(y.shape), y.dtype, y.device)
print(f"one layer, 8 x 512 tokens: {n} saved storages, {nbytes / 2**20:.1f} MiB for backward")
# --8<-- [end:fake_forward]
