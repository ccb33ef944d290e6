"""Anomaly detection catches the backward node that produced NaN (Setting up)."""
import torch

# --8<-- [start:nan_silent]
def forward(x):
    # d/dx sqrt(x) = 1 / (2 sqrt(x)) is inf at 0, and inf * 0 is nan
    return (x.sqrt() * 0).sum()


x = torch.tensor([0.0, 4.0], requires_grad=True)
forward(x).backward()
print("x.grad without anomaly mode:", x.grad)
# --8<-- [end:nan_silent]

# --8<-- [start:anomaly]
import warnings

x = torch.tensor([0.0, 4.0], requires_grad=True)
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    try:
        with torch.autograd.detect_anomaly():
            forward(x).backward()
    except RuntimeError as e:
        print(f"RuntimeError: {e}")
for warning in caught:
    lines = str(warning.message).splitlines()
    print(f"{warning.category.__name__}: {lines[0]}")
    frames = [l.split(", in ")[-1] for l in lines if l.strip().startswith("File ")]
    if frames:
        print(f"    innermost forward frame: in {frames[-1]}()")
        print(f"    {lines[-1].strip()}")
print("x.grad after the failed backward:", x.grad)
# --8<-- [end:anomaly]
