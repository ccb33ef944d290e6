"""What each backward node saves, and how to look at it."""
# --8<-- [start:saved]
import torch

torch.manual_seed(0)
a = torch.randn(3, 4, requires_grad=True)
m = torch.randn(4, 5, requires_grad=True)
out = torch.mm(a, m)
node = out.grad_fn
print(node.name(), sorted(k for k in dir(node) if k.startswith("_saved")))
print("_saved_self is a:", node._saved_self is a)
print("_saved_mat2 is m:", node._saved_mat2 is m)
print("_saved_self_sym_sizes:", node._saved_self_sym_sizes)
print("_raw_saved_self:", node._raw_saved_self)
# --8<-- [end:saved]

# --8<-- [start:output]
e = a.exp()
print(e.grad_fn.name(), [k for k in dir(e.grad_fn) if k.startswith("_saved")])
r = e.grad_fn._saved_result
print("saved result is e:", r is e, "| same storage:",
      r.untyped_storage().data_ptr() == e.untyped_storage().data_ptr())
# --8<-- [end:output]

# --8<-- [start:conditional]
const = torch.randn(3, 4)            # does not require grad
p = a * const                        # only a needs a gradient
print("a*const saves other:", p.grad_fn._saved_other is const,
      "| saves self:", p.grad_fn._saved_self)
q = const * a
print("const*a saves self :", q.grad_fn._saved_self is const,
      "| saves other:", q.grad_fn._saved_other)
# --8<-- [end:conditional]

# --8<-- [start:freed]
loss = torch.mm(a, m).sum()
mm_node = loss.grad_fn.next_functions[0][0]
loss.backward()
try:
    mm_node._saved_self
except RuntimeError as err:
    print(f"RuntimeError: {err}")

loss = torch.mm(a, m).sum()
loss.backward(retain_graph=True)
loss.backward()                     # the saved tensors are still there
print("three backward passes accumulated into a.grad:",
      torch.allclose(a.grad, 3 * (torch.ones(3, 5) @ m.T)))
# --8<-- [end:freed]
