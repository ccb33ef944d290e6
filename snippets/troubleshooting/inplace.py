"""Row 2: "modified by an inplace operation"."""
import torch

# --8<-- [start:inplace_repro]
import re
import warnings

torch.manual_seed(0)
torch.set_printoptions(precision=4)
x = torch.randn(4, requires_grad=True)


def gate(x):
    y = x.sigmoid()          # SigmoidBackward0 saves its output y
    y.mul_(2)                # ...which this in-place op then overwrites
    return y


try:
    gate(x).sum().backward()
except RuntimeError as e:
    print(f"RuntimeError: {e}")
# --8<-- [end:inplace_repro]

# --8<-- [start:inplace_diagnose]
y = x.sigmoid()
print("version after sigmoid:", y._version)
y.mul_(2)
print("version after mul_:   ", y._version)

with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    with torch.autograd.detect_anomaly():     # records a forward traceback per node
        try:
            gate(x).sum().backward()
        except RuntimeError:
            pass
for w in caught:
    first = str(w.message).splitlines()[0]
    if first.startswith("Error detected"):
        print(first)
        frames = re.findall(r"line \d+, in (\S+)", str(w.message))
        print("innermost forward frame:", frames[-1])
# --8<-- [end:inplace_diagnose]

# --8<-- [start:inplace_claims]
def backward_error(fn):
    try:
        fn().sum().backward()
        return "no error"
    except RuntimeError as e:
        return "RuntimeError: ..." + str(e).split("inplace operation:")[1].split(" instead.")[0]


def under_no_grad(x):
    y = x.sigmoid()
    with torch.no_grad():    # claim: wrapping the in-place op in no_grad makes it safe
        y.mul_(2)
    return y


def input_without_grad(w):
    d = torch.randn(4)       # requires_grad=False ...
    out = w * d              # ... but mul saves d to compute w's gradient
    d.add_(1)
    return out


print("in-place under no_grad:\n ", backward_error(lambda: under_no_grad(x)))
print("in-place on a requires_grad=False input:\n ", backward_error(lambda: input_without_grad(x)))

x.grad = None
y = x.sigmoid()
y.data.mul_(2)               # .data hides the write from the version counter
y.sum().backward()
s = x.detach().sigmoid()
print(".data: no error, but grad == sigmoid'(x)?", torch.allclose(x.grad, s * (1 - s)))
print("  got     ", x.grad)
print("  expected", s * (1 - s))
# --8<-- [end:inplace_claims]

# --8<-- [start:inplace_fix]
def gate_fixed(x):
    y = x.sigmoid()
    return y * 2             # out of place: the saved y stays at version 0


x.grad = None
gate_fixed(x).sum().backward()
print("fixed grad == 2 * sigmoid'(x):", torch.allclose(x.grad, 2 * s * (1 - s)))
# --8<-- [end:inplace_fix]
