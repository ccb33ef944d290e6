"""The memory of the math path (L x S score matrices) against the CPU flash kernel."""
# ruff: noqa: E402  (the environment is set before torch is imported)
import os

# Kineto's per-session log lines off; the build sets the same for every page.
os.environ.setdefault("KINETO_LOG_LEVEL", "6")

import torch

torch.set_num_threads(1)  # as the build runs every page

# --8<-- [start:peak]
import gc

import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel
from torch.profiler import profile


def memory_events(fn, outer=False, alive=False):
    """(operator, bytes) of each allocation (+) and free (-) while fn runs, in order.
    The operator is the one that allocated, or with outer=True the outermost one that
    fn called; with alive=True, only the allocations still held when fn returns."""
    gc.collect()  # earlier garbage is freed now, not by a collection during fn
    with profile(profile_memory=True) as prof:
        fn()
    found = []

    def walk(node, top):  # the profiler's call tree, depth first: the order of events
        if node.name == "[memory]":
            operator = top if outer else node.parent.name if node.parent else "-"
            event = node.extra_fields
            found.append((operator, event.alloc_size, event.ptr))
        for child in node.children:
            walk(child, top)

    for root in prof.profiler.kineto_results.experimental_event_tree():
        walk(root, root.name)
    if alive:  # match each free to the allocation at its address
        held = {}
        for operator, size, ptr in found:
            if size > 0:
                held[ptr] = (operator, size)
            else:
                held.pop(ptr, None)
        return list(held.values())
    return [(operator, size) for operator, size, _ in found]


def peak_bytes(events):
    held = peak = 0
    for _, size in events:
        held += size
        peak = max(peak, held)
    return peak


torch.manual_seed(0)
B, H, L, D = 1, 4, 1024, 64
q, k, v = (torch.randn(B, H, L, D) for _ in range(3))
print(f"one L x S float matrix: {L * L * 4:,} bytes; "
      f"one per head: {B * H * L * L * 4:,}")
for backend in (SDPBackend.MATH, SDPBackend.FLASH_ATTENTION):
    with sdpa_kernel(backend):
        events = memory_events(lambda: F.scaled_dot_product_attention(q, k, v))
    print(f"{backend.name}: peak {peak_bytes(events):,} bytes; allocations over 8 KiB")
    for op, size in events:
        if size > 8192:
            print(f"    {op:50} {size:>12,}")
# --8<-- [end:peak]


# --8<-- [start:flash_buffer]
def flash_buffer_bytes(L, D, threads=1):
    """The CPU flash kernel's scratch space: a block of scores, its row max and sum, an
    output block, per thread (cpu_flash_attention in FlashAttentionKernel.cpp)."""
    q_split = min(L, 256 if L >= 768 else 64 if L >= 192 else 32)
    kv_split = min(L, 512)
    per_thread = q_split * kv_split + 2 * q_split + q_split * D
    return threads * per_thread * 4


for length in (256, 1024, 4096):
    x = torch.randn(1, 1, length, D)
    events = memory_events(lambda: F.scaled_dot_product_attention(x, x, x))
    scratch = max(size for op, size in events if op == "aten::empty")
    formula = flash_buffer_bytes(length, D)
    print(f"L={length:5}: scratch {scratch:>9,} bytes, the formula {formula:>9,}; "
          f"L x L would be {length * length * 4:>11,}")
torch.set_num_threads(2)  # the page runs on one intra-op thread; two for this one call
events = memory_events(lambda: F.scaled_dot_product_attention(q, k, v))
torch.set_num_threads(1)
scratch = max(size for op, size in events if op == "aten::empty")
print(f"L= 1024 on 2 threads: scratch {scratch:,} bytes, "
      f"the formula {flash_buffer_bytes(L, D, threads=2):,}")
# --8<-- [end:flash_buffer]

# --8<-- [start:draw_memory]
import matplotlib.pyplot as plt

lengths = [256, 512, 1024, 2048]
peaks = {SDPBackend.MATH: [], SDPBackend.FLASH_ATTENTION: []}
for length in lengths:
    x = torch.randn(B, H, length, D)
    for backend, found in peaks.items():
        with sdpa_kernel(backend):
            events = memory_events(lambda: F.scaled_dot_product_attention(x, x, x))
            found.append(peak_bytes(events))
mib = 2**20
print("L      " + "".join(f"{length:>10}" for length in lengths))
for backend, found in peaks.items():
    print(f"{backend.name:16}" + "".join(f"{p / mib:>10.2f}" for p in found), "MiB")

fig, ax = plt.subplots(figsize=(6.4, 3.6))
for backend, marker in ((SDPBackend.MATH, "o"), (SDPBackend.FLASH_ATTENTION, "s")):
    values = [p / mib for p in peaks[backend]]
    ax.plot(lengths, values, marker=marker, label=backend.name)
    for length, value in zip(lengths, values):
        ax.annotate(f"{value:.2f}", (length, value), textcoords="offset points",
                    xytext=(0, 7), ha="center", fontsize=8)
ax.set_xscale("log", base=2)
ax.set_yscale("log", base=2)
ax.set_xticks(lengths, [str(length) for length in lengths])
ax.set_yticks([0.25, 1, 4, 16, 64, 256], ["0.25", "1", "4", "16", "64", "256"])
ax.set_xlabel("sequence length L (= S)")
ax.set_ylabel("peak bytes allocated (MiB)")
ax.set_title(f"scaled_dot_product_attention, B={B}, H={H}, D={D}, float32, one thread")
ax.legend()
fig.tight_layout()
fig.savefig("sdpa-memory.svg")
# --8<-- [end:draw_memory]

# --8<-- [start:training]
for backend in (SDPBackend.MATH, SDPBackend.FLASH_ATTENTION):
    leaves = [t.clone().requires_grad_() for t in (q, k, v)]  # as in training
    kept = []  # the output, and with it what autograd saved for the backward

    def forward(leaves=leaves, kept=kept):
        kept.append(F.scaled_dot_product_attention(*leaves))

    with sdpa_kernel(backend):
        held = memory_events(forward, alive=True)
    print(f"{backend.name}: held until backward {sum(s for _, s in held):,} bytes")
    print(f"    grad_fn: {kept[0].grad_fn.name()}; allocations over 8 KiB:")
    for op, size in held:
        if size > 8192:
            print(f"    {op:50} {size:>12,}")
# --8<-- [end:training]
