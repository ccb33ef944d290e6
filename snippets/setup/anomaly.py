"""Anomaly mode: what it turns on, and what it costs (Setting up)."""
import torch

# --8<-- [start:anomaly]
import warnings


def forward(x):
    return x.sqrt().sum()  # sqrt(-1) is NaN, and so is its gradient


print("anomaly mode by default:", torch.is_anomaly_enabled())
x = torch.tensor([-1.0, 4.0], requires_grad=True)
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    with torch.autograd.detect_anomaly():
        print("inside detect_anomaly(): enabled", torch.is_anomaly_enabled(),
              "| checks for NaN:", torch.is_anomaly_check_nan_enabled())
        try:
            forward(x).backward()
        except RuntimeError as error:
            print("RuntimeError:", error)
for warning in caught:  # the first line, and the line of forward code it names
    lines = str(warning.message).splitlines()
    print(f"{warning.category.__name__}: {lines[0]}")
    for line in lines:
        if "x.sqrt()" in line:
            print("   ", line.strip())
# --8<-- [end:anomaly]
