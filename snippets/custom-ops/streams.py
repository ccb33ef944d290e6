"""Streams and events: what the CPU build shows, and the CUDA calls."""
import torch

# --8<-- [start:cpu]
print("CUDA available:", torch.cuda.is_available())
print("accelerator:   ", torch.accelerator.current_accelerator(),
      "| available:", torch.accelerator.is_available(),
      "| checked:", torch.accelerator.current_accelerator(check_available=True))

# The CPU "stream" is a stub for device-agnostic code: every CPU kernel has
# finished when the call returns.
print("torch.Stream on cpu:", torch.Stream(device="cpu"))
try:
    torch.Event(device="cpu").record()
except RuntimeError as e:
    print("RuntimeError:", e)

# record_stream is an ordinary aten operator with only a CUDA kernel.
has = torch._C._dispatch_has_kernel_for_dispatch_key
print("aten::record_stream kernel for CPU:", has("aten::record_stream", "CPU"))
try:
    torch.ones(2).record_stream(torch.Stream(device="cpu"))
except NotImplementedError as e:
    print("NotImplementedError:", str(e).split(". ")[0] + ".")
# --8<-- [end:cpu]
