"""What current torch says about TorchScript when you call it, and what a script sees."""
import warnings

import torch

# --8<-- [start:status]
def triple(x: torch.Tensor) -> torch.Tensor:
    return x * 3


with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    scripted_triple = torch.jit.script(triple)
    traced_triple = torch.jit.trace(triple, torch.ones(3))
messages = dict.fromkeys(f"{w.category.__name__}: {w.message}" for w in caught)
print("\n".join(messages))
print("still works:", scripted_triple(torch.ones(2)).tolist(), traced_triple(torch.ones(2)).tolist())
# --8<-- [end:status]

# --8<-- [start:attribution]
# warnings.warn attributes a warning to the frame at `stacklevel` (1 by default):
# the line inside torch that calls warnings.warn, not the caller's line.
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    torch.jit.script(triple)
print(f"{caught[0].category.__name__} attributed to {caught[0].filename}:{caught[0].lineno}")
# --8<-- [end:attribution]

# --8<-- [start:default_filters]
import os
import subprocess
import sys
from pathlib import Path

# A reader's script, run as __main__ in a fresh interpreter with Python's default
# warning filters: first as it is, then with DeprecationWarnings switched on.
Path("use_script.py").write_text(
    """import warnings
import torch

for action, _, category, module, _ in warnings.filters:
    if category is DeprecationWarning:
        print("filter:", action, category.__name__, "module:", getattr(module, "pattern", module))


def triple(x: torch.Tensor) -> torch.Tensor:
    return x * 3


torch.jit.script(triple)
print("scripted with the default filters")
warnings.simplefilter("default", DeprecationWarning)  # what `python -W default` does
torch.jit.script(triple)
print("scripted with DeprecationWarnings shown")
"""
)
env = {k: v for k, v in os.environ.items() if k not in ("PYTHONWARNINGS", "PYTHONDEVMODE")}
env["PYTHONUNBUFFERED"] = "1"  # keep stdout and stderr lines in the order they happened
child = subprocess.run([sys.executable, "use_script.py"], env=env, check=True,
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
print(child.stdout)
# --8<-- [end:default_filters]
