"""Anomaly detection: the forward traceback of the node whose backward failed."""
# --8<-- [start:anomaly]
import re
import warnings

import torch


def block(inp):
    hidden = inp.sigmoid()          # the node whose backward will fail
    hidden.mul_(2)                  # the in-place op that breaks it
    return hidden.sum()


torch.manual_seed(0)
x = torch.randn(4, requires_grad=True)
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    with torch.autograd.detect_anomaly():
        loss = block(x)
        sig = loss.grad_fn.next_functions[0][0].next_functions[0][0]
        print(sig.name(), "metadata keys:", list(sig.metadata))
        try:
            loss.backward()
        except RuntimeError as err:
            print(f"RuntimeError: {err}")

for w in caught:
    lines = str(w.message).splitlines()
    print(f"--- {w.category.__name__}: {lines[0]}")
    # keep the frame inside block() (as an offset from its `def` line, which does
    # not depend on where this file lives) and the last line (where the C++ warned)
    for line in lines:
        found = re.search(r"line (\d+), in block$", line)
        if found:
            offset = int(found.group(1)) - block.__code__.co_firstlineno
            print(f"    frame: block(), line def+{offset}")
    if len(lines) > 1:
        print("   ", lines[-1].strip())
# --8<-- [end:anomaly]

# --8<-- [start:nan]
x = torch.tensor([0.0, 1.0], requires_grad=True)
loss = (x.sqrt() * 0).sum()         # backward: grad / (2 * sqrt(x)) = 0 / 0 at 0
loss.backward()
print("without anomaly mode x.grad =", x.grad)

x.grad = None
with warnings.catch_warnings(record=True):
    warnings.simplefilter("always")
    with torch.autograd.set_detect_anomaly(True):     # also usable as a context manager
        loss = (x.sqrt() * 0).sum()
        try:
            loss.backward()
        except RuntimeError as err:
            print(f"RuntimeError: {err}")
print("anomaly mode still on after the with block:", torch.is_anomaly_enabled())
# --8<-- [end:nan]
