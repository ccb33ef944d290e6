"""The CUDA backends of scaled_dot_product_attention: flash, memory-efficient, cuDNN.

The first region runs anywhere; the regions after the SystemExit need CUDA.
"""
# ruff: noqa: E402, F401, I001  (the page's earlier blocks define what is imported here)
import os

# Kineto's per-session log lines off; the build sets the same for every page.
os.environ.setdefault("KINETO_LOG_LEVEL", "6")

import torch

torch.set_num_threads(1)  # as the build runs every page

from sdpa import F, SDPBackend, k, kernel_run, only, q, sdpa_kernel, v  # SDPA blocks

# --8<-- [start:priority]
def priority():
    return [SDPBackend(i).name for i in torch._C._get_sdp_priority_order()]


def enabled():
    flags = {
        "FLASH_ATTENTION": torch.backends.cuda.flash_sdp_enabled(),
        "EFFICIENT_ATTENTION": torch.backends.cuda.mem_efficient_sdp_enabled(),
        "CUDNN_ATTENTION": torch.backends.cuda.cudnn_sdp_enabled(),
        "MATH": torch.backends.cuda.math_sdp_enabled(),
    }
    return [name for name, on in flags.items() if on]


print("priority:", priority())
print("enabled: ", enabled())
with sdpa_kernel(
    [SDPBackend.CUDNN_ATTENTION, SDPBackend.FLASH_ATTENTION], set_priority=True
):
    print("inside sdpa_kernel([CUDNN_ATTENTION, FLASH_ATTENTION], set_priority=True):")
    print("  priority:", priority())
    print("  enabled: ", enabled())
print("after:   ", priority())
with sdpa_kernel([SDPBackend.MATH, SDPBackend.FLASH_ATTENTION], set_priority=True):
    print("MATH first, on the CPU:", priority()[:2], "->", kernel_run(q, k, v))
# --8<-- [end:priority]

if not torch.cuda.is_available():  # the regions below are GPU-only blocks
    raise SystemExit(0)

# --8<-- [start:cuda_choice]
print("device:", torch.cuda.get_device_name(), torch.cuda.get_device_capability())
torch.manual_seed(0)
B, H, L, D = 2, 8, 1024, 64


def qkv(dtype=torch.float16, head_dim=D):
    return [
        torch.randn(B, H, L, head_dim, device="cuda", dtype=dtype) for _ in range(3)
    ]


half = qkv()
cases = {
    "float16": (half, {}),
    "bfloat16": (qkv(torch.bfloat16), {}),
    "float32": (qkv(torch.float32), {}),
    "float16, dropout_p=0.1": (half, {"dropout_p": 0.1}),
    "float16, float attn_mask": (
        half,
        {"attn_mask": torch.randn(L, L, device="cuda", dtype=torch.float16)},
    ),
    "float16, is_causal=True": (half, {"is_causal": True}),
    "float16, head dim 80": (qkv(head_dim=80), {}),
    "float16, head dim 512": (qkv(head_dim=512), {}),
}
for name, (args, kwargs) in cases.items():
    choice = SDPBackend(torch._fused_sdp_choice(*args, **kwargs)).name
    print(f"{name:26} {choice:20} {kernel_run(*args, **kwargs)}")
print("priority after these CUDA calls:", priority())
# --8<-- [end:cuda_choice]

# --8<-- [start:cuda_refusal]
print("FLASH_ATTENTION only, float32:")
only(SDPBackend.FLASH_ATTENTION, *cases["float32"][0])
print("FLASH_ATTENTION only, float attn_mask:")
only(
    SDPBackend.FLASH_ATTENTION,
    *half,
    attn_mask=cases["float16, float attn_mask"][1]["attn_mask"],
)
print("CUDNN_ATTENTION only, head dim 512:")
only(SDPBackend.CUDNN_ATTENTION, *cases["float16, head dim 512"][0])
# --8<-- [end:cuda_refusal]

# --8<-- [start:cuda_memory]
L = 8192
q, k, v = (
    torch.randn(1, H, L, D, device="cuda", dtype=torch.float16) for _ in range(3)
)
print(f"one L x S matrix of float16: {L * L * 2:,} bytes; one per head: "
      f"{H * L * L * 2:,}")
for backend in (
    SDPBackend.MATH,
    SDPBackend.EFFICIENT_ATTENTION,
    SDPBackend.FLASH_ATTENTION,
    SDPBackend.CUDNN_ATTENTION,
):
    torch.cuda.synchronize()
    torch.cuda.reset_peak_memory_stats()
    base = torch.cuda.memory_allocated()
    try:
        with sdpa_kernel(backend):
            out = F.scaled_dot_product_attention(q, k, v)
        torch.cuda.synchronize()
        print(
            f"{backend.name:20} peak above the inputs: "
            f"{torch.cuda.max_memory_allocated() - base:>13,} bytes"
        )
        del out
    except RuntimeError as e:
        print(f"{backend.name:20} {str(e).splitlines()[0]}")
# --8<-- [end:cuda_memory]

# --8<-- [start:cuda_flex]
import re

from torch._inductor.utils import run_and_get_code
from torch.nn.attention.flex_attention import create_block_mask, flex_attention


def causal(b, h, q_idx, kv_idx):
    return q_idx >= kv_idx


L = 2048
q, k, v = (
    torch.randn(1, H, L, D, device="cuda", dtype=torch.float16) for _ in range(3)
)
block_mask = create_block_mask(causal, None, None, L, L, device="cuda")
out, sources = run_and_get_code(
    torch.compile(flex_attention), q, k, v, block_mask=block_mask
)
reference = F.scaled_dot_product_attention(q, k, v, is_causal=True)
print("equals SDPA with is_causal=True:", torch.allclose(out, reference, atol=2e-3))
print(
    "Triton kernels:",
    sorted(set(re.findall(r"\b(triton_\w+) = async_compile", "".join(sources)))),
)
# --8<-- [end:cuda_flex]
