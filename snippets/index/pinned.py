"""Which torch this handbook was executed against."""

# --8<-- [start:pinned]
import sys

import torch

print("torch      ", torch.__version__)
print("git commit ", torch.version.git_version)
print("CUDA build ", torch.version.cuda)
# Outputs differ by Python's minor version, not by its patch release (the banner names both).
print("python     ", "%d.%d" % sys.version_info[:2])
# --8<-- [end:pinned]
