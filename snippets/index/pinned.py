"""Which torch this handbook was executed against."""

# --8<-- [start:pinned]
import platform

import torch

print("torch      ", torch.__version__)
print("git commit ", torch.version.git_version)
print("CUDA build ", torch.version.cuda)
print("python     ", platform.python_version())
# --8<-- [end:pinned]
