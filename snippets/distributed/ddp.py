"""DistributedDataParallel: the broadcast, the Reducer's buckets, unused parameters, no_sync, hooks."""

from snippets.distributed.ranks import dist, run_ranks, show, timedelta, torch  # noqa: F401

# isort: split

# --8<-- [start:ddp_broadcast]
from torch import nn
from torch.distributed.algorithms.ddp_comm_hooks import default_hooks
from torch.nn.parallel import DistributedDataParallel as DDP


def wrap(rank, world_size):
    torch.manual_seed(rank)  # each rank initialises different weights
    model = nn.Linear(2, 1)
    before = round(model.weight.sum().item(), 4)
    DDP(model)  # the constructor broadcasts rank 0's parameters and buffers
    return f"weight sum before DDP {before:+.4f}, after {model.weight.sum().item():+.4f}"


def mismatched(rank, world_size):
    DDP(nn.Linear(2, 1 + rank))  # rank 1's layer has another shape
    return "wrapped"


show(run_ranks(wrap))
rank0, rank1 = run_ranks(mismatched)
print("rank 1:", rank1)
print("rank 0 fails too:", rank0 != "wrapped", "| its error names the shapes:", "sizes" in rank0)
# --8<-- [end:ddp_broadcast]


# --8<-- [start:buckets]
def mlp():
    torch.manual_seed(0)
    return nn.Sequential(nn.Linear(8, 8), nn.ReLU(), nn.Linear(8, 8), nn.ReLU(), nn.Linear(8, 2))


def bucket_log(model, ddp, log):
    """A comm hook that logs which parameters each bucket holds, then all-reduces as DDP would."""
    names = {p: n for n, p in model.named_parameters()}

    def hook(state, bucket):
        nbytes = bucket.buffer().numel() * bucket.buffer().element_size()
        log.append(f"bucket {bucket.index()} ({nbytes} bytes): {[names[p] for p in bucket.parameters()]}")
        return default_hooks.allreduce_hook(None, bucket)

    ddp.register_comm_hook(None, hook)
    return names


def buckets(rank, world_size, bucket_cap_mb, **options):
    model = mlp()
    ddp = DDP(model, bucket_cap_mb=bucket_cap_mb, **options)
    log = []
    bucket_log(model, ddp, log)
    for step in range(2):
        log.append(f"-- step {step}")
        ddp(torch.randn(4, 8)).sum().backward()
    return log


print("bucket_cap_mb=300 bytes (a bucket is closed once it holds 300 bytes or more):")
print(*run_ranks(lambda r, w: buckets(r, w, 300 / 2**20))[0], sep="\n")
print("bucket_cap_mb default (25 MiB; the first bucket after the rebuild: 1 MiB):")
print(*run_ranks(lambda r, w: buckets(r, w, None))[0], sep="\n")
print("find_unused_parameters=True, the same 300-byte cap:")
print(*run_ranks(lambda r, w: buckets(r, w, 300 / 2**20, find_unused_parameters=True))[0], sep="\n")
print("dist._DEFAULT_FIRST_BUCKET_BYTES:", dist._DEFAULT_FIRST_BUCKET_BYTES)
# --8<-- [end:buckets]


# --8<-- [start:overlap]
def overlap(rank, world_size):
    model = mlp()
    ddp = DDP(model, bucket_cap_mb=300 / 2**20)
    log = []
    names = bucket_log(model, ddp, log)
    for p in model.parameters():  # runs once autograd has accumulated p.grad
        p.register_post_accumulate_grad_hook(lambda p: log.append(f"  grad ready: {names[p]}"))
    ddp(torch.randn(4, 8)).sum().backward()  # step 0: buckets are rebuilt in the order grads arrived
    log.clear()
    ddp(torch.randn(4, 8)).sum().backward()  # step 1: the order to read
    return log


print(*run_ranks(overlap)[0], sep="\n")
# --8<-- [end:overlap]


# --8<-- [start:draw_buckets]
import ast
import re

import matplotlib.pyplot as plt

log = run_ranks(overlap)[0]  # step 1 of rank 0 again: each line a gradient ready or a bucket launched
bucket_of = {}
for line in log:
    if match := re.match(r"bucket (\d+) \((\d+) bytes\): (.*)", line):
        bucket_of.update((name, int(match[1])) for name in ast.literal_eval(match[3]))
colours = ["#0072B2", "#C05400", "#007A5A", "#A8457E"]  # white text on each at 4.5:1 or more

fig, ax = plt.subplots(figsize=(7.2, 3.0))
for x, line in enumerate(log):
    if line.strip().startswith("grad ready:"):
        name = line.split(": ")[1]
        ax.text(x, 1 + 0.35 * (x % 2), name, ha="center", va="center", color="white", fontweight="bold",
                bbox={"boxstyle": "round,pad=0.35", "facecolor": colours[bucket_of[name]], "edgecolor": "none"})
    else:
        match = re.match(r"bucket (\d+) \((\d+) bytes\)", line)
        index = int(match[1])
        ax.text(x, 0, f"all-reduce\nbucket {index}\n{match[2]} bytes", ha="center", va="center",
                bbox={"boxstyle": "round,pad=0.35", "facecolor": "white", "edgecolor": colours[index],
                      "linewidth": 2})
        ax.annotate("", xy=(x, 0.32), xytext=(x - 1, 0.8),
                    arrowprops={"arrowstyle": "-|>", "color": colours[index]})
        print(f"event {x}: all-reduce of bucket {index} launched, after",
              [name for name in bucket_of if bucket_of[name] == index])
ax.set_yticks([1.17, 0], ["autograd:\ngradient ready", "Reducer:\nall-reduce launched"])
ax.set_xticks(range(len(log)))
ax.set_xlabel("order of events during backward of step 1 (rank 0)")
ax.set_xlim(-0.7, len(log) - 0.3)
ax.set_ylim(-0.6, 1.6)
ax.spines[["top", "right", "left"]].set_visible(False)
ax.tick_params(axis="y", length=0)
fig.savefig("ddp-buckets.svg")
# --8<-- [end:draw_buckets]


# --8<-- [start:unused_error]
class TwoHeads(nn.Module):
    def __init__(self):
        super().__init__()
        self.a = nn.Linear(4, 4)
        self.b = nn.Linear(4, 4)  # never used in forward below

    def forward(self, x):
        return self.a(x)


def unused(rank, world_size):
    torch.manual_seed(0)
    ddp = DDP(TwoHeads())
    torch.manual_seed(rank)  # each rank its own batch, as in real training
    seen = []
    for step in range(2):
        try:
            ddp(torch.randn(2, 4)).sum().backward()
            seen.append(ddp.module.a.weight.grad.tolist())  # the used layer's gradient
        except RuntimeError as e:
            seen.append(f"RuntimeError: {e}")
    return seen


results = run_ranks(unused)
grads = [torch.tensor(steps[0]) for steps in results]
print("step 0: no error; a.weight.grad the same on both ranks:", torch.equal(*grads))
print("  a.weight.grad.sum() on rank 0, rank 1:", [round(g.sum().item(), 4) for g in grads])
print("step 1:", results[0][1])
# --8<-- [end:unused_error]

# --8<-- [start:unused_names]
error = run_ranks(unused, env={"TORCH_DISTRIBUTED_DEBUG": "INFO"})[0][1]
print(*[line for line in error.splitlines() if "did not receive grad" in line], sep="\n")
# --8<-- [end:unused_names]


# --8<-- [start:unused_fix]
def unused_found(rank, world_size, model_cls):
    torch.manual_seed(0)
    model = model_cls()
    ddp = DDP(model, find_unused_parameters=True)  # walks the autograd graph after every forward
    for _ in range(2):
        ddp(torch.randn(2, 4)).sum().backward()
    return {name: p.grad is None for name, p in model.named_parameters()}


print("grad is None:", run_ranks(lambda r, w: unused_found(r, w, TwoHeads))[0])


class Branchy(nn.Module):
    """Head b is used on rank 1 only: a rank-dependent branch."""

    def __init__(self):
        super().__init__()
        self.a = nn.Linear(2, 1, bias=False)
        self.b = nn.Linear(2, 1, bias=False)

    def forward(self, x, use_b):
        return self.a(x) + self.b(x) if use_b else self.a(x)


def used_on_one_rank(rank, world_size):
    torch.manual_seed(0)
    model = Branchy()
    ddp = DDP(model, find_unused_parameters=True)
    x = torch.ones(1, 2)
    # b's gradient from this rank's own batch, before DDP averages anything
    own = torch.autograd.grad(model.b(x).sum(), model.b.weight)[0].tolist()
    ddp(x, use_b=rank == 1).sum().backward()
    return model.b.weight.grad.tolist(), own


(grad0, _), (grad1, own1) = run_ranks(used_on_one_rank)
print(f"b used on rank 1 only: b.weight.grad on rank 0 {grad0}, on rank 1 {grad1};",
      f"rank 1's own {own1}")
results, logs = run_ranks(lambda r, w: unused_found(r, w, lambda: nn.Linear(4, 4)), logs=True)
warning = [line for line in logs[0].splitlines() if "find_unused_parameters=True was specified" in line]
print("with nothing unused, rank 0 warns:", warning[0].split("] ", 1)[1])
# --8<-- [end:unused_fix]


# --8<-- [start:no_sync]
def accumulate(rank, world_size):
    torch.manual_seed(0)
    lin = nn.Linear(2, 1, bias=False)
    ddp = DDP(lin)
    reduced = []

    def count(state, bucket):
        reduced.append(bucket.index())
        return default_hooks.allreduce_hook(None, bucket)

    ddp.register_comm_hook(None, count)
    x = torch.full((1, 2), rank + 1.0)  # rank 0 sees ones, rank 1 twos: local grads differ
    with ddp.no_sync():  # micro-batch 1: gradients accumulate locally, nothing is reduced
        ddp(x).sum().backward()
    first, reduced_so_far = lin.weight.grad.tolist(), len(reduced)
    ddp(x).sum().backward()  # micro-batch 2, outside no_sync: the sum of both is averaged
    return (
        f"after no_sync {first} ({reduced_so_far} all-reduces), "
        f"after the next backward {lin.weight.grad.tolist()} ({len(reduced)} all-reduce)"
    )


show(run_ranks(accumulate))
# --8<-- [end:no_sync]


# --8<-- [start:fp16_hook]
def compressed(rank, world_size, hook):
    torch.manual_seed(0)
    lin = nn.Linear(4, 1, bias=False)
    ddp = DDP(lin)
    if hook is not None:
        ddp.register_comm_hook(None, hook)  # state None: the default process group
    ddp(torch.full((1, 4), 1 / 3 + rank)).sum().backward()
    return lin.weight.grad[0, 0].item()


exact = run_ranks(lambda r, w: compressed(r, w, None))[0]
fp16 = run_ranks(lambda r, w: compressed(r, w, default_hooks.fp16_compress_hook))[0]
print(f"averaged gradient, float32 all-reduce: {exact!r}")
print(f"averaged gradient, fp16_compress_hook: {fp16!r} (sent as float16, cast back to float32)")
bf16 = run_ranks(lambda r, w: compressed(r, w, default_hooks.bf16_compress_hook))[0]
print("bf16_compress_hook on gloo:", bf16 if isinstance(bf16, float) else bf16.split(":")[0])
# --8<-- [end:fp16_hook]
