"""The version counter and the in-place error."""
# --8<-- [start:error]
import traceback

import torch

torch.manual_seed(0)
x = torch.randn(4, requires_grad=True)
y = x.sigmoid()                              # SigmoidBackward0 saves its *result* y at version 0
y.mul_(2)                                    # bumps y to version 1
print("y._version:", y._version, "| y.grad_fn:", y.grad_fn.name(),
      "<-", y.grad_fn.next_functions[0][0].name())
try:
    y.sum().backward()
except RuntimeError as err:
    print(f"RuntimeError: {err}")
    print("Python frames of the traceback:", [f.name for f in traceback.extract_tb(err.__traceback__)])
# --8<-- [end:error]

# --8<-- [start:unpack]
sig_node = y.grad_fn.next_functions[0][0]
try:
    sig_node._saved_result                   # the same check runs on any unpack
except RuntimeError as err:
    print(f"RuntimeError on unpack: {str(err)[:110]}...")
# --8<-- [end:unpack]

# --8<-- [start:not_a_grad_tensor]
k = torch.randn(4)                           # requires_grad=False, but MulBackward0 saves it
p = x * k
k.add_(1)
try:
    p.sum().backward()
except RuntimeError as err:
    print(f"RuntimeError: {err}")
# --8<-- [end:not_a_grad_tensor]

# --8<-- [start:fine]
x.grad = None
h = x * 3                                    # MulBackward0 saves the scalar, not x or h
h.add_(1)                                    # AddBackward needs nothing saved
h.relu_()                                    # ReluBackward0 saves its result: h after relu_
(h * 1).sum().backward()
print("h._version:", h._version, "| x.grad:", x.grad)
# --8<-- [end:fine]

# --8<-- [start:no_grad_advice]
x.grad = None
y = x.sigmoid()
with torch.no_grad():                        # advice: "wrap the in-place op in no_grad"
    y.mul_(2)
print("y._version after no_grad in-place:", y._version)
try:
    y.sum().backward()
except RuntimeError as err:
    print(f"RuntimeError: {str(err)[:150]}...")
# --8<-- [end:no_grad_advice]

# --8<-- [start:leaf]
w = torch.randn(3, requires_grad=True)
try:
    w.sub_(0.1)                              # an SGD step written without no_grad
except RuntimeError as err:
    print(f"RuntimeError: {err}")
with torch.no_grad():                        # what no_grad is for
    w.sub_(0.1)
print("leaf updated under no_grad, w._version:", w._version)
# --8<-- [end:leaf]

# --8<-- [start:fixes]
s = x.detach().sigmoid()
expected = 2 * s * (1 - s)                   # d/dx of 2 * sigmoid(x)

x.grad = None                                # 1. out of place
y = x.sigmoid()
y = y * 2
y.sum().backward()
print("out-of-place            :", torch.allclose(x.grad, expected))

x.grad = None                                # 2. clone, then mutate the clone
y = x.sigmoid()
y2 = y.clone()
y2.mul_(2)
y2.sum().backward()
print("clone then in-place     :", torch.allclose(x.grad, expected))

x.grad = None                                # 3. let autograd clone for you
with torch.autograd.graph.allow_mutation_on_saved_tensors():
    y = x.sigmoid()
    y.mul_(2)
    y.sum().backward()
print("allow_mutation_on_saved :", torch.allclose(x.grad, expected))
# --8<-- [end:fixes]
