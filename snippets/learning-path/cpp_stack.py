"""All layers in one C++ stack: a failing torch.mul (Learning path)."""

# --8<-- [start:cpp_stack_mul]
import os
import subprocess
import sys

code = """
import torch
a = torch.ones(2, requires_grad=True)
try:
    torch.mul(a, torch.ones(3))
except RuntimeError as e:
    print(e)
"""
env = dict(os.environ, TORCH_SHOW_CPP_STACKTRACES="1", TORCH_DISABLE_ADDR2LINE="1")
out = subprocess.run([sys.executable, "-c", code], env=env,
                     capture_output=True, text=True, timeout=120).stdout
lines = out.splitlines()
print(lines[0])
print(lines[1])
for line in lines[2:]:
    if not line.startswith("#"):
        continue
    name, _, where = line.split(" ", 1)[1].partition(" from ")
    library = os.path.basename(where.rsplit(":", 1)[0])
    if library not in ("libc10.so", "libtorch_cpu.so", "libtorch_python.so"):
        break
    print(f"    {name.split('(')[0]:50} [{library}]")
# --8<-- [end:cpp_stack_mul]
