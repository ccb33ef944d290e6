"""TORCH_SHOW_CPP_STACKTRACES: the C++ frames behind a RuntimeError (Setting up)."""
import torch

# --8<-- [start:cpp_plain]
import os

try:
    torch.ones(2, 3) @ torch.ones(2, 3)
except RuntimeError as e:
    print(f"RuntimeError: {e}")

os.environ["TORCH_SHOW_CPP_STACKTRACES"] = "1"     # too late: torch is already loaded
try:
    torch.ones(2, 3) @ torch.ones(2, 3)
except RuntimeError as e:
    print("lines in the message after setting it at run time:", len(str(e).splitlines()))
del os.environ["TORCH_SHOW_CPP_STACKTRACES"]
# --8<-- [end:cpp_plain]

# --8<-- [start:cpp_stack]
import os
import subprocess
import sys

code = """
import torch
try:
    torch.ones(2, 3) @ torch.ones(2, 3)
except RuntimeError as e:
    print(e)
"""
# The variable is read once per process, so it must be set before torch starts.
# TORCH_DISABLE_ADDR2LINE=1 names frames from the symbol table only (fast, no addr2line).
env = dict(os.environ, TORCH_SHOW_CPP_STACKTRACES="1", TORCH_DISABLE_ADDR2LINE="1")
out = subprocess.run([sys.executable, "-c", code], env=env,
                     capture_output=True, text=True, timeout=120).stdout
lines = out.splitlines()
print(lines[0])          # the message
print(lines[1])          # where the check failed
for line in lines[2:]:
    if not line.startswith("#"):
        continue
    name, _, where = line.split(" ", 1)[1].partition(" from ")
    library = os.path.basename(where.rsplit(":", 1)[0])
    if library not in ("libc10.so", "libtorch_cpu.so", "libtorch_python.so"):
        break                     # the rest are CPython's own frames
    print(f"    {name.split('(')[0]:45} [{library}]")
# --8<-- [end:cpp_stack]

# --8<-- [start:symbolizer]
def cpp_frames(**settings):
    """Run the failing matmul in a child with C++ stack traces on; return (frames, stderr)."""
    env = dict(os.environ, TORCH_SHOW_CPP_STACKTRACES="1", **settings)
    for name in ("TORCH_DISABLE_ADDR2LINE", "TORCH_SYMBOLIZE_MODE"):
        if name not in settings:
            env.pop(name, None)          # the release's own default
    run = subprocess.run([sys.executable, "-c", code], env=env,
                         capture_output=True, text=True, timeout=120)
    return [line for line in run.stdout.splitlines() if line.startswith("#")], run.stderr


for label, settings in [("default", {}), ("TORCH_SYMBOLIZE_MODE=fast", {"TORCH_SYMBOLIZE_MODE": "fast"})]:
    frames, stderr = cpp_frames(**settings)
    print(f"{label}: runs addr2line: {'symbolizing C++ stack trace' in stderr}, "
          f"names the CPU wrapper: {any('wrapper_CPU_mm' in f for f in frames)}")
# --8<-- [end:symbolizer]

# --8<-- [start:addr2line_cost]
timed = """
import time
import torch
for attempt in range(3):
    start = time.perf_counter()
    try:
        torch.ones(2, 3) @ torch.ones(2, 3)
    except RuntimeError as e:
        message = str(e)
    print(f"{time.perf_counter() - start:.3f}")
"""
env = dict(os.environ, TORCH_SHOW_CPP_STACKTRACES="1", TORCH_SYMBOLIZE_MODE="addr2line")
env.pop("TORCH_DISABLE_ADDR2LINE", None)
run = subprocess.run([sys.executable, "-c", timed], env=env,
                     capture_output=True, text=True, timeout=120)
first, *later = run.stdout.split()
print("addr2line announced per exception:", run.stderr.count("symbolizing C++ stack trace"))
print(f"first exception, addr2line: {first}s (measured; claim: < 30)")
print(f"slowest later exception, same frames: {max(later)}s (measured; claim: < 0.5)")
# --8<-- [end:addr2line_cost]
