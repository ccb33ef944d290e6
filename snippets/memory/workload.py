"""One training step through the allocator's eyes: the profiler's memory timeline on
the CPU, and the CUDA allocator's counters for the same step on a GPU.

The first region runs anywhere; the region after the SystemExit needs CUDA.
"""
import os

os.environ.setdefault("KINETO_LOG_LEVEL", "6")  # as every page runs; for this file alone
import torch
from torch import nn

# --8<-- [start:step_profile]
import gzip
import json

from torch.profiler import ProfilerActivity, profile

# The profiler's categories, in the order of the index it writes with each event.
CATEGORIES = ["parameter", "optimizer state", "input", "temporary", "activation",
              "gradient", "autograd detail", "unknown"]


def profile_two_steps(**adam_options):
    """Live bytes per category at the peak and at the end of two Adam steps."""
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(256, 1024), nn.ReLU(), nn.Linear(1024, 256))
    opt = torch.optim.Adam(model.parameters(), **adam_options)
    batch = torch.randn(64, 256)
    with profile(activities=[ProfilerActivity.CPU], profile_memory=True,
                 record_shapes=True, with_stack=True) as prof:
        for _ in range(2):
            model(batch).pow(2).mean().backward()
            opt.step()
            opt.zero_grad(set_to_none=True)
    prof.export_memory_timeline("step.raw.json.gz", device="cpu")
    with gzip.open("step.raw.json.gz", "rt") as f:
        events = json.load(f)  # (time, action, bytes, category), in order
    live, peak = [0] * len(CATEGORIES), [0] * len(CATEGORIES)
    for _, _, nbytes, category in events:
        live[category] += nbytes
        if sum(live) > sum(peak):
            peak = list(live)
    return sum(p.numel() * p.element_size() for p in model.parameters()), peak, live


def show_counts(label, counts):
    print(f"{label}: {sum(counts):,} bytes")
    for name, nbytes in zip(CATEGORIES, counts):
        if nbytes:
            print(f"  {name:16}{nbytes:>12,}")


n_params, peak, live = profile_two_steps()
print(f"parameters of the model: {n_params:,} bytes")
show_counts("peak", peak)
show_counts("after the two steps", live)
_, fused_peak, _ = profile_two_steps(fused=True)
show_counts("peak with Adam(fused=True)", fused_peak)
# --8<-- [end:step_profile]

if not torch.cuda.is_available():  # the region below is a GPU-only block
    raise SystemExit(0)

# --8<-- [start:cuda_step_stats]
torch.manual_seed(0)
gpu_model = nn.Sequential(nn.Linear(256, 1024), nn.ReLU(), nn.Linear(1024, 256)).cuda()
gpu_opt = torch.optim.Adam(gpu_model.parameters())
gpu_batch = torch.randn(64, 256, device="cuda")
torch.cuda.synchronize()
for step in (1, 2):
    torch.cuda.reset_peak_memory_stats()
    gpu_model(gpu_batch).pow(2).mean().backward()
    gpu_opt.step()
    gpu_opt.zero_grad(set_to_none=True)
    torch.cuda.synchronize()
    stats = torch.cuda.memory_stats()
    print(f"step {step}: allocated peak {stats['allocated_bytes.all.peak']:,}, "
          f"current {stats['allocated_bytes.all.current']:,}, "
          f"reserved {stats['reserved_bytes.all.current']:,}, "
          f"segments {stats['segment.all.current']}, "
          f"retries {stats['num_alloc_retries']}")
# --8<-- [end:cuda_step_stats]
