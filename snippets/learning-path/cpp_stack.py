"""All layers in one C++ stack: a failing torch.mul (Learning path)."""

# --8<-- [start:cpp_stack_mul]
import os
import re
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


def short(name):
    """A C++ frame's name without template arguments and parameter list."""
    name = name.replace("(anonymous namespace)", "{anonymous}")
    while "<" in name:
        name = re.sub(r"<[^<>]*>", "", name)           # innermost template arguments first
    return name.split("(")[0]


def torch_frames(code):
    """Run code in a child interpreter with C++ stack traces; print the message and torch's frames."""
    # TORCH_SYMBOLIZE_MODE=fast names functions with internal linkage too, without addr2line.
    env = dict(os.environ, TORCH_SHOW_CPP_STACKTRACES="1", TORCH_SYMBOLIZE_MODE="fast")
    out = subprocess.run([sys.executable, "-c", code], env=env,
                         capture_output=True, text=True, timeout=120).stdout
    message, where_raised, trace = out.split("\n", 2)
    print(message)
    print(where_raised)
    for name, path in re.findall(r"^#\d+ (.+) from (\S+):\d+$", trace, re.MULTILINE):
        library = os.path.basename(path)
        if library not in ("libc10.so", "libtorch_cpu.so", "libtorch_python.so"):
            break                     # the rest are CPython's own frames
        if not name.startswith("std::"):          # std:: is the stack-trace fetcher itself
            print(f"    {short(name):62} [{library}]")


torch_frames(code)
# --8<-- [end:cpp_stack_mul]

# --8<-- [start:cpp_stack_inference]
torch_frames("""
import torch
with torch.inference_mode():          # the autograd keys are excluded for this call
    try:
        torch.mul(torch.ones(2), torch.ones(3))
    except RuntimeError as e:
        print(e)
""")
# --8<-- [end:cpp_stack_inference]
