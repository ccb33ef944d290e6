"""scaled_dot_product_attention on the CPU: the backend it picks, why one refuses."""
# ruff: noqa: E402  (the environment is set before torch is imported)
import os

# Kineto's per-session log lines off; the build sets the same for every page.
os.environ.setdefault("KINETO_LOG_LEVEL", "6")

import torch

torch.set_num_threads(1)  # as the build runs every page

# --8<-- [start:reference]
import math

import torch
import torch.nn.functional as F

torch.manual_seed(0)
B, H, L, S, D = 2, 4, 128, 128, 64  # batch, heads, query length, key length, head size
q, k, v = torch.randn(B, H, L, D), torch.randn(B, H, S, D), torch.randn(B, H, S, D)
out = F.scaled_dot_product_attention(q, k, v)
scores = q @ k.transpose(-2, -1) / math.sqrt(D)  # one score per (query, key) pair
textbook = torch.softmax(scores, dim=-1) @ v
print("output", tuple(out.shape), "from scores", tuple(scores.shape))
print("equals softmax(q k^T / sqrt(D)) v:", torch.allclose(out, textbook, atol=1e-5))
# --8<-- [end:reference]

# --8<-- [start:choice]
from torch.nn.attention import SDPBackend
from torch.profiler import profile


def kernel_run(*args, **kwargs):
    """The ATen kernel that scaled_dot_product_attention ran, found by the profiler."""
    with profile() as prof:
        F.scaled_dot_product_attention(*args, **kwargs)
    return next(e.name for e in prof.events() if e.name.startswith("aten::_scaled_dot"))


cases = {
    "float32": ((q, k, v), {}),
    "float64": ((q.double(), k.double(), v.double()), {}),
    "bfloat16": ((q.bfloat16(), k.bfloat16(), v.bfloat16()), {}),
    "float16": ((q.half(), k.half(), v.half()), {}),
    "is_causal=True": ((q, k, v), {"is_causal": True}),
    "boolean attn_mask": ((q, k, v), {"attn_mask": torch.rand(L, S) > 0.5}),
    "2 k, v heads, enable_gqa": ((q, k[:, :2], v[:, :2]), {"enable_gqa": True}),
    "dropout_p=0.1": ((q, k, v), {"dropout_p": 0.1}),
    "3-D (no head dim)": ((q[0], k[0], v[0]), {}),
    "k transposed in memory": ((q, k.mT.contiguous().mT, v), {}),
}
for name, (args, kwargs) in cases.items():
    choice = SDPBackend(torch._fused_sdp_choice(*args, **kwargs)).name
    print(f"{name:24} {choice:16} {kernel_run(*args, **kwargs)}")
# --8<-- [end:choice]

# --8<-- [start:refusal]
import warnings

from torch.nn.attention import sdpa_kernel


def only(backend, *args, **kwargs):
    """Run SDPA with one backend allowed; print the warnings' reasons, the outcome."""
    with warnings.catch_warnings(record=True) as caught, sdpa_kernel(backend):
        warnings.simplefilter("always")
        try:
            F.scaled_dot_product_attention(*args, **kwargs)
            outcome = "ran"
        except RuntimeError as e:
            outcome = f"RuntimeError: {e}"
    for w in caught:
        reason, _, where = str(w.message).partition(" (Triggered internally at ")
        where = where.removeprefix("/__w/pytorch/pytorch/").removesuffix(".)")
        print(f"  {w.category.__name__}: {reason}\n    from {where}")
    print(" ", outcome)


k_t = k.mT.contiguous().mT  # the same values, each key's D numbers 128 floats apart
print("k stride:", k.stride(), "k_t stride:", k_t.stride())
print("FLASH_ATTENTION only, k_t:")
only(SDPBackend.FLASH_ATTENTION, q, k_t, v)
print("FLASH_ATTENTION only, dropout_p=0.1:")
only(SDPBackend.FLASH_ATTENTION, q, k, v, dropout_p=0.1)
print("FLASH_ATTENTION only, k_t and dropout_p=0.1:")
only(SDPBackend.FLASH_ATTENTION, q, k_t, v, dropout_p=0.1)
# --8<-- [end:refusal]

# --8<-- [start:layout]
x = torch.randn(B, L, H * D)  # what a projection returns: (batch, length, features)
q_heads = x.view(B, L, H, D).transpose(1, 2)  # (B, H, L, D), a view: no copy
print("q_heads contiguous:", q_heads.is_contiguous(), "stride:", q_heads.stride())
print("FLASH_ATTENTION only, q_heads:")
only(SDPBackend.FLASH_ATTENTION, q_heads, k, v)
print("FLASH_ATTENTION only, k_t.contiguous():")
only(SDPBackend.FLASH_ATTENTION, q, k_t.contiguous(), v)
# --8<-- [end:layout]

# --8<-- [start:no_backend]
print("EFFICIENT_ATTENTION only, on the CPU:")
only(SDPBackend.EFFICIENT_ATTENTION, q, k, v)
print("MATH only, dropout_p=0.1 and k_t:")
only(SDPBackend.MATH, q, k_t, v, dropout_p=0.1)
# --8<-- [end:no_backend]

# --8<-- [start:global_flags]
import threading

seen = {}


def other_thread():
    seen["flash enabled in another thread"] = torch.backends.cuda.flash_sdp_enabled()
    seen["its kernel"] = kernel_run(q, k, v)


with sdpa_kernel(SDPBackend.MATH):
    print("inside: flash enabled:", torch.backends.cuda.flash_sdp_enabled())
    worker = threading.Thread(target=other_thread)
    worker.start()
    worker.join()
for name, value in seen.items():
    print(f"inside: {name}: {value}")
print("after: flash enabled:", torch.backends.cuda.flash_sdp_enabled())
# --8<-- [end:global_flags]

# --8<-- [start:legacy_manager]
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    with torch.backends.cuda.sdp_kernel(
        enable_flash=True, enable_math=False, enable_mem_efficient=False
    ):
        print("old manager: flash enabled:", torch.backends.cuda.flash_sdp_enabled(),
              "math enabled:", torch.backends.cuda.math_sdp_enabled())
for warning in caught:
    print(f"{warning.category.__name__}: {str(warning.message).split('. ')[0]}.")
with sdpa_kernel(SDPBackend.FLASH_ATTENTION):
    print("sdpa_kernel(FLASH_ATTENTION): flash enabled:",
          torch.backends.cuda.flash_sdp_enabled(),
          "math enabled:", torch.backends.cuda.math_sdp_enabled())
# --8<-- [end:legacy_manager]

# --8<-- [start:causal_alignment]
from torch.nn.attention.bias import causal_lower_right, causal_upper_left

torch.manual_seed(0)
cached_k, cached_v = torch.randn(1, H, 6, D), torch.randn(1, H, 6, D)  # positions 0-5
new_q = torch.randn(1, H, 2, D)  # the queries of positions 4 and 5, computed now
out = F.scaled_dot_product_attention(new_q, cached_k, cached_v, is_causal=True)
for name, bias in (("causal_upper_left", causal_upper_left(2, 6)),
                   ("causal_lower_right", causal_lower_right(2, 6))):
    with_bias = F.scaled_dot_product_attention(
        new_q, cached_k, cached_v, attn_mask=bias
    )
    print(f"{name}(2, 6) is what is_causal=True computed: "
          f"{torch.allclose(out, with_bias, atol=1e-6)}; the pairs it allows:")
    print(bias._materialize().int())  # the CausalBias as a dense mask, to show it
last_q = new_q[:, :, 1:]  # decoding: one new query over the whole cache
one = F.scaled_dot_product_attention(last_q, cached_k, cached_v, is_causal=True)
print("one query, is_causal=True: the output is the value of position 0:",
      torch.allclose(one, cached_v[:, :, :1], atol=1e-6))
# --8<-- [end:causal_alignment]
