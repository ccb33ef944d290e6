"""FlexAttention on the CPU: score_mod, mask_mod, BlockMask, and Inductor's kernel."""
# ruff: noqa: E402  (the environment is set before torch is imported)
import os

# Kineto's per-session log lines off; the build sets the same for every page.
os.environ.setdefault("KINETO_LOG_LEVEL", "6")

import torch

torch.set_num_threads(1)  # as the build runs every page

# --8<-- [start:score_mod]
import math

import torch.nn.functional as F
from torch.nn.attention.flex_attention import flex_attention

torch.manual_seed(0)
B, H, L, D = 1, 4, 256, 64
q, k, v = (torch.randn(B, H, L, D) for _ in range(3))


def distance_penalty(score, b, h, q_idx, kv_idx):
    """A per-head penalty on the distance between query and key (ALiBi's shape)."""
    slope = 2.0 ** (-(h + 1))
    return score - slope * (q_idx - kv_idx).abs()


out = flex_attention(q, k, v, score_mod=distance_penalty)

# The same by hand: every score of the (B, H, L, L) matrix, then the penalty on it.
heads = torch.arange(H).view(1, H, 1, 1)
distance = (torch.arange(L).view(-1, 1) - torch.arange(L).view(1, -1)).abs()
scores = q @ k.transpose(-2, -1) / math.sqrt(D) - 2.0 ** (-(heads + 1)) * distance
by_hand = torch.softmax(scores, dim=-1) @ v
print("equals the hand-made scores:", torch.allclose(out, by_hand, atol=1e-5))
# --8<-- [end:score_mod]

# --8<-- [start:mask_mod]
from torch.nn.attention.flex_attention import create_block_mask, create_mask


def causal(b, h, q_idx, kv_idx):
    return q_idx >= kv_idx


print(create_mask(causal, 1, 1, 6, 6, device="cpu").int()[0, 0])
block_mask = create_block_mask(causal, B=None, H=None, Q_LEN=L, KV_LEN=L, device="cpu")
out = flex_attention(q, k, v, block_mask=block_mask)
reference = F.scaled_dot_product_attention(q, k, v, is_causal=True)
print("equals SDPA with is_causal=True:", torch.allclose(out, reference, atol=1e-5))
# --8<-- [end:mask_mod]

# --8<-- [start:documents]
from torch.nn.attention.flex_attention import and_masks


def same_document(document):
    """A mask_mod for packed sequences: `document[i]` is the document of position i."""

    def mask_mod(b, h, q_idx, kv_idx):
        return document[q_idx] == document[kv_idx]

    return mask_mod


document = torch.tensor([0, 0, 0, 1, 1, 2, 2, 2, 2, 2])  # three documents in one row
packed = and_masks(causal, same_document(document))
print(create_mask(packed, 1, 1, 10, 10, device="cpu").int()[0, 0])
# --8<-- [end:documents]

# --8<-- [start:block_mask]
L = 1024
block_mask = create_block_mask(causal, None, None, L, L, device="cpu")
print(block_mask)
print("BLOCK_SIZE:", block_mask.BLOCK_SIZE)
print("kv_num_blocks     ", block_mask.kv_num_blocks[0, 0].tolist())
print("full_kv_num_blocks", block_mask.full_kv_num_blocks[0, 0].tolist())
print("row 3: partial", block_mask.kv_indices[0, 0, 3, :1].tolist(),
      "full", block_mask.full_kv_indices[0, 0, 3, :3].tolist())
print("sparsity:", block_mask.sparsity(), "%")
# --8<-- [end:block_mask]

# --8<-- [start:draw_block_mask]
import matplotlib.pyplot as plt
from matplotlib.colors import ListedColormap
from matplotlib.patches import Patch


def block_kinds(block_mask):
    """A (Q blocks, KV blocks) grid: 0 skipped, 1 partial (mask_mod runs), 2 full."""
    kinds = torch.zeros(block_mask.kv_indices.shape[-2:], dtype=torch.int)
    for kind, num, indices in (
        (1, block_mask.kv_num_blocks, block_mask.kv_indices),
        (2, block_mask.full_kv_num_blocks, block_mask.full_kv_indices),
    ):
        for row in range(kinds.shape[0]):
            kinds[row, indices[0, 0, row, : num[0, 0, row]]] = kind
    return kinds


L = 2048
lengths = [700, 300, 600, 448]  # four documents packed into one row of 2048 tokens
document = torch.repeat_interleave(torch.arange(len(lengths)), torch.tensor(lengths))


def sliding_window(b, h, q_idx, kv_idx):
    return q_idx - kv_idx < 256


layouts = {
    "causal": causal,
    "causal, 4 documents": and_masks(causal, same_document(document)),
    "causal, window 256": and_masks(causal, sliding_window),
}
fig, axes = plt.subplots(1, 3, figsize=(9.6, 3.6))
colours = ListedColormap(["#FFFFFF", "#D55E00", "#0072B2"])  # skipped, partial, full
for ax, (title, mask_mod) in zip(axes, layouts.items()):
    kinds = block_kinds(create_block_mask(mask_mod, None, None, L, L, device="cpu"))
    counts = [int((kinds == kind).sum()) for kind in (2, 1, 0)]
    print(
        f"{title:20} full {counts[0]:3}  partial {counts[1]:3}  skipped {counts[2]:3}"
        f"  of {kinds.numel()}"
    )
    ax.pcolormesh(kinds.flip(0).numpy(), cmap=colours, vmin=0, vmax=2,
                  edgecolors="#BBBBBB", linewidth=0.3)
    ax.set_title(
        f"{title}\nfull {counts[0]}, partial {counts[1]}, skipped {counts[2]}",
        fontsize=9,
    )
    ax.set_xticks([0, 16], ["0", str(L)])
    ax.set_yticks([0, 16], [str(L), "0"])
    ax.set_aspect("equal")
axes[0].set_ylabel("query position")
axes[1].set_xlabel("key position (blocks of 128)")
fig.legend(
    handles=[
        Patch(facecolor=colours(2), label="full: computed, no mask_mod"),
        Patch(facecolor=colours(1), label="partial: computed, mask_mod applied"),
        Patch(facecolor="#FFFFFF", edgecolor="#BBBBBB", label="skipped"),
    ],
    loc="lower center",
    ncols=3,
    frameon=False,
    fontsize=9,
)
fig.tight_layout(rect=(0, 0.08, 1, 1))
fig.savefig("block-mask.svg")
# --8<-- [end:draw_block_mask]

# --8<-- [start:graph]
import textwrap

from functorch.compile import make_boxed_func
from torch._dynamo.backends.common import aot_autograd


def show_graph(gm, example_inputs):
    """A backend: print the ATen graph that AOTAutograd hands the compiler, run it."""
    inputs = [
        f"{n.name}: {'x'.join(map(str, n.meta['val'].shape))}"
        for n in gm.graph.nodes
        if n.op == "placeholder"
    ]
    print(textwrap.fill("inputs: " + ", ".join(inputs), 84, subsequent_indent="    "))
    for node in gm.graph.nodes:
        if node.target is torch.ops.higher_order.flex_attention:
            query, key, value, score_graph, mask_tuple, scale, *_, buffers = node.args
            call = (
                f"{node.name} = flex_attention({query}, {key}, {value}, {score_graph}, "
                f"block_mask=({', '.join(map(str, mask_tuple))}), scale={scale}, "
                f"mask buffers=({', '.join(map(str, buffers))}))"
            )
            print(textwrap.fill(call, 84, subsequent_indent="    "))
    for name in ("sdpa_score0", "sdpa_mask0"):
        subgraph = getattr(gm, name)
        shapes = [
            tuple(n.meta["val"].shape)
            for n in subgraph.graph.nodes
            if n.op == "placeholder"
        ]
        code = [line.split(";")[0] for line in subgraph.code.strip().splitlines()]
        print(f"{name}, input shapes {shapes}:", *code, sep="\n    ")
    return make_boxed_func(gm.forward)


torch._dynamo.reset()
L = 256
q, k, v = (torch.randn(B, H, L, D) for _ in range(3))
document = torch.arange(L) // 100  # documents of 100, 100 and 56 tokens
block_mask = create_block_mask(
    and_masks(causal, same_document(document)), None, None, L, L, device="cpu"
)
traced = torch.compile(flex_attention, backend=aot_autograd(fw_compiler=show_graph))
out = traced(q, k, v, score_mod=distance_penalty, block_mask=block_mask)
# --8<-- [end:graph]

# --8<-- [start:template]
from torch._inductor.kernel.flex import flex_cpu  # the CPU lowering, with its template
from torch._inductor.codegen import cpp_flex_attention_template as template

landmarks = [  # the first two from INIT_PARAMS, the rest from the kernel's body
    "int64_t qBlockSize", "int64_t kvBlockSize",
    "at::parallel_for(0, batchSize * num_head * qSlice",
    "for (int64_t n_idx = 0; n_idx <",
    "// Calculate scale * q @ k.T", "// apply score mod function", "if ((std::find(",
    "// Apply block mask", "// Update coefficients with Softmax",
    "// Calculate Softmax(q @ k.T) @ v", "// dst <- dst / sum[row]",
]
skeleton = []
for line in (template.INIT_PARAMS + template.FLEX_ATTENTION_TEMPLATE).splitlines():
    found = len(skeleton)
    if found < len(landmarks) and line.strip().startswith(landmarks[found]):
        skeleton.append(line)
print(*skeleton, sep="\n")
# --8<-- [end:template]

# --8<-- [start:compiled]
# timeout="600" on the page: a cold Inductor compile of this kernel, 30-60 s; 170 s in make test beside two busy loops.
import re
import time

from torch._inductor.utils import run_and_get_code


def measured(label, value, claim):
    """Print a measurement. Where torch refuses to compile flex_attention for this CPU,
    the value is `refused`, which only the claim's last branch allows (so a ratio is
    printed without a unit: the text has none)."""
    print(
        f"{label}: {value} (measured; claim: {claim} with AVX2 or AVX512, "
        "one of refused otherwise)"
    )


def packed(n, length):
    """A BlockMask for n documents of equal length, packed in one row, each causal."""
    document = torch.arange(length) * n // length
    mask_mod = and_masks(causal, same_document(document))
    return create_block_mask(mask_mod, None, None, length, length, device="cpu")


torch._dynamo.reset()
L = 1024
q, k, v = (torch.randn(B, H, L, D) for _ in range(3))
one_document, eight_documents = packed(1, L), packed(8, L)
compiled = torch.compile(flex_attention)
kernel = missing = first_vs_later = "refused"
if flex_cpu.check_cpu_supported():
    seconds = [time.perf_counter()]
    out, (source,) = run_and_get_code(
        compiled, q, k, v, score_mod=distance_penalty, block_mask=one_document
    )
    for _ in range(3):  # three later calls, timed the same way
        seconds.append(time.perf_counter())
        compiled(q, k, v, score_mod=distance_penalty, block_mask=one_document)
    seconds.append(time.perf_counter())
    first, *later = [end - start for start, end in zip(seconds, seconds[1:])]
    first_vs_later = f"{first / sorted(later)[1]:.0f}"
    eager = flex_attention(q, k, v, score_mod=distance_penalty, block_mask=one_document)
    kernels = re.findall(r"^(cpp_fused\w+) = async_compile", source, re.M)
    matches = len(kernels) == 1 and torch.allclose(out, eager, atol=1e-5)
    kernel = kernels[0] if matches else kernels
    q_block, kv_block = one_document.BLOCK_SIZE  # what the template's {{...}} became
    filled = [line.strip().replace("{{qBlockSize}}", str(q_block))
              .replace("{{kvBlockSize}}", str(kv_block)) for line in skeleton]
    missing = sum(line not in source for line in filled)
measured("Inductor's kernels for it, matching eager", kernel,
         "one of cpp_fused_flex_attention_0")
measured("lines of the skeleton above not in the generated kernel", missing, "one of 0")
measured("first compiled call vs a later one, time ratio", first_vs_later, "> 20")
# --8<-- [end:compiled]


# --8<-- [start:compiled_time]
def median_seconds(*fns, repeats=7):
    """The median CPU time of this thread for each fn, measured in alternation, so
    that a neighbour's load on the machine slows every fn alike."""
    times = [[] for _ in fns]
    for _ in range(repeats):
        for fn, found in zip(fns, times):
            start = time.thread_time()
            fn()
            found.append(time.thread_time() - start)
    return [sorted(found)[repeats // 2] for found in times]


def call(attention, mask):
    return lambda: attention(q, k, v, score_mod=distance_penalty, block_mask=mask)


compiled_vs_eager = eight_vs_one = "refused"
if flex_cpu.check_cpu_supported():
    eager_s, one_s, eight_s = median_seconds(
        call(flex_attention, one_document),
        call(compiled, one_document),
        call(compiled, eight_documents),
    )
    compiled_vs_eager = f"{one_s / eager_s:.2f}"
    eight_vs_one = f"{eight_s / one_s:.2f}"
print(
    f"sparsity: one document {one_document.sparsity():.2f} %, "
    f"eight documents {eight_documents.sparsity():.2f} %"
)
measured("compiled vs eager flex_attention, time ratio", compiled_vs_eager, "< 0.5")
measured("compiled, eight documents vs one, time ratio", eight_vs_one, "< 0.7")
# --8<-- [end:compiled_time]
