"""Which torch is this? Version, commit, build flags (Setting up)."""

# --8<-- [start:version]
import importlib.metadata

import torch

print("torch.__version__        :", torch.__version__)
print("torch.version.git_version:", torch.version.git_version)
print("torch.version.cuda       :", torch.version.cuda)
print("torch.version.debug      :", torch.version.debug)
print("Requires-Python (wheel)  :", importlib.metadata.metadata("torch")["Requires-Python"])
# --8<-- [end:version]

# --8<-- [start:backends]
b = torch.backends
print("cuda built        :", b.cuda.is_built())
print("cudnn available   :", b.cudnn.is_available())
print("mps available     :", b.mps.is_available())
print("mkldnn (oneDNN)   :", b.mkldnn.is_available())
print("mkl               :", b.mkl.is_available())
print("openmp            :", b.openmp.is_available())
print("cuda.is_available :", torch.cuda.is_available())
# --8<-- [end:backends]

# --8<-- [start:config]
import re

config = torch.__config__.show()
# The header lines name the compiler and the math libraries.
for line in config.splitlines():
    if line.strip().startswith(("- GCC", "- C++ Version", "- OpenMP", "- LAPACK")):
        print(line.strip())
# "Build settings" is one long KEY=value line; pick a few stable keys.
settings_line = next(l for l in config.splitlines() if "Build settings:" in l)
settings = dict(re.findall(r"(\w+)=([^,]*)", settings_line))
for key in ("TORCH_VERSION", "COMMIT_SHA", "BUILD_TYPE", "USE_CUDA", "USE_MKLDNN", "BLAS_INFO"):
    print(f"{key:13} = {settings[key]}")
# --8<-- [end:config]

# --8<-- [start:collect_env]
import textwrap

from torch.utils.collect_env import SystemEnv

# the fields of the report `python -m torch.utils.collect_env` prints
print(textwrap.fill(", ".join(SystemEnv._fields), 80))
# --8<-- [end:collect_env]

# --8<-- [start:tag]
release = torch.__version__.split("+")[0]          # drop the local "+cpu" label
print("check out tag   :", "v" + release)
print("expected commit :", torch.version.git_version)
print("build settings agree:", settings["COMMIT_SHA"] == torch.version.git_version)
# --8<-- [end:tag]
