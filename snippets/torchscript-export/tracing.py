"""TorchScript tracing: record the operators of one run."""
import warnings

import torch

warnings.simplefilter("default", DeprecationWarning)
torch.manual_seed(0)


# --8<-- [start:trace_branch]
def shift_by_sign(x: torch.Tensor) -> torch.Tensor:
    if x.sum() > 0:
        return x * 2
    return x - 10


positive = torch.ones(3)
traced = torch.jit.trace(shift_by_sign, positive)
print(traced.code)
negative = -torch.ones(3)
print("eager  on negative input:", shift_by_sign(negative).tolist())
print("traced on negative input:", traced(negative).tolist())
# --8<-- [end:trace_branch]

# --8<-- [start:trace_check]
try:
    torch.jit.trace(shift_by_sign, positive, check_inputs=[(negative,)])
except torch.jit.TracingCheckError as e:
    print(type(e).__name__ + ":", "\n".join(str(e).strip().splitlines()[:2]))
# --8<-- [end:trace_check]
