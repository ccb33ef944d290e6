"""Row: "CUDA error: device-side assert triggered", and what the CPU says instead."""
import torch

# --8<-- [start:cpu_index_errors]
import torch.nn.functional as F

torch.manual_seed(0)
logits = torch.randn(4, 10)  # 10 classes: labels must be 0 to 9
labels = torch.tensor([1, 4, 10, 3])  # labels counted from 1: 10 is out of range
table = torch.nn.Embedding(100, 8)  # token ids must be 0 to 99
tokens = torch.tensor([[5, 99, 100]])
rows = torch.arange(10.0)

for name, step in [
    ("cross_entropy", lambda: F.cross_entropy(logits, labels)),
    ("embedding", lambda: table(tokens)),
    ("indexing", lambda: rows[torch.tensor([2, 10])]),
]:
    try:
        step()
    except (IndexError, RuntimeError) as error:
        print(f"{name}: {type(error).__name__}: {error}")

bad = (labels < 0) | (labels >= logits.shape[1])  # where are the offending labels?
print("labels out of range at", bad.nonzero().flatten().tolist(),
      "with values", labels[bad].tolist())
# --8<-- [end:cpu_index_errors]

if not torch.cuda.is_available():  # the region below is a GPU-only block
    raise SystemExit(0)

# --8<-- [start:gpu_assert]
import os
import re
import subprocess
import sys

# The same label error on the GPU, in a child process: after a device-side assert the
# process's CUDA context cannot be used again, so each run gets a fresh one.
CHILD = """
import torch
import torch.nn.functional as F

logits = torch.randn(4, 10, device="cuda")
labels = torch.tensor([1, 4, 10, 3], device="cuda")
line = "cross_entropy"
try:
    loss = F.cross_entropy(logits, labels)  # queues the kernel; its assert fires later
    line = "loss * 2"
    doubled = loss * 2  # another launch
    line = "loss.item()"
    print("loss:", loss.item())  # waits for the GPU
except RuntimeError as error:
    print("raised at:", line, "|", str(error).splitlines()[0])
try:
    (torch.ones(1, device="cuda") + 1).item()
    print("a later CUDA call: works")
except RuntimeError as error:
    print("a later CUDA call:", str(error).splitlines()[0])
"""
for blocking in ("0", "1"):
    env = {**os.environ, "CUDA_LAUNCH_BLOCKING": blocking}
    done = subprocess.run([sys.executable, "-c", CHILD], capture_output=True, text=True,
                          timeout=120, env=env)
    print(f"CUDA_LAUNCH_BLOCKING={blocking}:")
    print(done.stdout, end="")
    asserts = sorted(set(re.findall(r"Assertion `[^`]*` failed", done.stderr)))
    print("  the kernel's own message on stderr:", asserts)
# --8<-- [end:gpu_assert]
