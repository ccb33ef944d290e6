"""Mistakes with FlexAttention: eager calls, a mask per step, recompiles, training."""
# ruff: noqa: E402, F401, I001  (the page's earlier blocks define what is imported here)
import os

# Kineto's per-session log lines off; the build sets the same for every page.
os.environ.setdefault("KINETO_LOG_LEVEL", "6")

import torch

torch.set_num_threads(1)  # as the build runs every page

from flex import (  # the page's FlexAttention blocks, which run before these
    B, D, H, and_masks, causal, create_block_mask, flex_attention, median_seconds,
)
from memory import F, memory_events, peak_bytes  # the page's memory section

# --8<-- [start:eager_fallback]
torch.manual_seed(0)
L = 1024
q, k, v = (torch.randn(B, H, L, D) for _ in range(3))
causal_mask = create_block_mask(causal, None, None, L, L, device="cpu")
runs = {
    "flex_attention, eager": lambda: flex_attention(q, k, v, block_mask=causal_mask),
    "SDPA, is_causal=True": lambda: F.scaled_dot_product_attention(q, k, v,
                                                                   is_causal=True),
}
scores_bytes = B * H * L * L * 4  # one float per (head, query, key)
for name, run in runs.items():
    events = memory_events(run)
    full = sum(size >= scores_bytes for _, size in events)
    print(f"{name:22} peak {peak_bytes(events):>11,} bytes; "
          f"allocations of {scores_bytes:,} bytes or more: {full}")
eager_s, sdpa_s = median_seconds(*runs.values())
print(f"eager flex_attention vs SDPA, time: {eager_s / sdpa_s:.1f}x "
      "(measured; claim: > 1.5)")
# --8<-- [end:eager_fallback]

# --8<-- [start:mask_per_step]
def new_mask():
    return create_block_mask(causal, None, None, L, L, device="cpu")


print(f"create_block_mask(causal, None, None, {L}, {L}): allocations over 64 KiB")
for op, size in memory_events(new_mask, outer=True):
    if size > 65536:
        print(f"    {op:30} {size:>11,}")
mask_s, attention_s = median_seconds(
    new_mask, lambda: F.scaled_dot_product_attention(q, k, v, is_causal=True))
print(f"create_block_mask vs SDPA's causal kernel on the same q, k, v, time: "
      f"{mask_s / attention_s:.2f}x (measured; claim: > 0.05)")
# --8<-- [end:mask_per_step]

# --8<-- [start:mask_heads]
for b, h in ((None, None), (2, 8)):
    mask = create_block_mask(causal, b, h, L, L, device="cpu")
    events = memory_events(lambda: create_block_mask(causal, b, h, L, L, device="cpu"))
    print(f"B={b}, H={h}: mask shape {mask.shape}, "
          f"kv_indices {tuple(mask.kv_indices.shape)}, "
          f"allocates {sum(s for _, s in events if s > 0):,} bytes")
# --8<-- [end:mask_heads]

# --8<-- [start:mask_cache]
import functools


@functools.lru_cache(maxsize=8)
def causal_mask_for(length):
    """One BlockMask per sequence length, built on first use and reused after."""
    return create_block_mask(causal, None, None, length, length, device="cpu")


for length in (1024, 512, 1024, 1024):
    mask = causal_mask_for(length)
print(causal_mask_for.cache_info())
# --8<-- [end:mask_cache]

# --8<-- [start:recompiles]
import torch._dynamo

graphs = []


def counting(gm, example_inputs):
    """A backend that records the query's size in each graph Dynamo hands it, and runs
    it; a size that is a symbol (it may vary) shows as `s`."""
    placeholders = gm.graph.find_nodes(op="placeholder")
    inputs = [node.meta.get("example_value") for node in placeholders]
    query = next(value for value in inputs if isinstance(value, torch.Tensor))
    graphs.append("x".join(str(s) if isinstance(s, int) else "s" for s in query.shape))
    return gm.forward


for dynamic in (None, False):
    torch._dynamo.reset()
    graphs.clear()
    attention = torch.compile(flex_attention, backend=counting, dynamic=dynamic)
    for length in (256, 256, 384, 512, 640):
        x = torch.randn(B, H, length, D)
        attention(x, x, x, block_mask=causal_mask_for(length))
    print(f"dynamic={dynamic}: 5 calls, {len(graphs)} graphs, query sizes", *graphs)
# --8<-- [end:recompiles]

# --8<-- [start:mask_length]
for length, mask_length in ((512, 256), (256, 512)):
    x = torch.randn(B, H, length, D)
    try:
        flex_attention(x, x, x, block_mask=causal_mask_for(mask_length))
    except (ValueError, RuntimeError) as e:  # a ValueError in torch 2.13
        print(f"L={length}, a mask for {mask_length}: {type(e).__name__}: {e}")
# --8<-- [end:mask_length]

# --8<-- [start:backward]
project = torch.nn.Linear(D, D)  # a layer: its output requires grad through its weight
x = torch.randn(B, H, 256, D)
for mode in ("grad enabled", "no_grad"):
    with torch.set_grad_enabled(mode == "grad enabled"):
        qkv = project(x)
        try:
            out = flex_attention(qkv, qkv, qkv, block_mask=causal_mask_for(256))
            outcome = f"output {tuple(out.shape)}"
        except NotImplementedError as e:
            outcome = f"NotImplementedError: {e}"
        print(f"{mode}: requires_grad {qkv.requires_grad}: {outcome}")
leaf = torch.randn(B, H, 256, D, requires_grad=True)
with torch.no_grad():
    try:
        flex_attention(leaf, leaf, leaf, block_mask=causal_mask_for(256))
    except NotImplementedError:
        print("no_grad, a leaf that requires grad: NotImplementedError all the same")
# --8<-- [end:backward]
