"""What torch 2.13 says about TorchScript when you call it."""
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
