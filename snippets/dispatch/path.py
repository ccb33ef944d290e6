"""From torch.add to a kernel: the Python binding, the operator handle, the key set."""
# --8<-- [start:setup]
import torch

torch.manual_seed(0)
torch.set_printoptions(precision=4)
# --8<-- [end:setup]

# --8<-- [start:binding]
# torch.add is not Python code: it is a C function generated from a template.
print("torch.add is the C binding:", torch.add is torch._C._VariableFunctions.add)
print("type:", type(torch.add).__name__)

# The same operator, reached through the dispatcher's registry instead.
packet = torch.ops.aten.add
print("overload packet:", type(packet).__name__, "with", len(packet.overloads()), "overloads")
op = torch.ops.aten.add.Tensor
print("overload:", type(op).__name__)
print("schema:", op._schema)

a, b = torch.ones(3), torch.arange(3.0)
print("same result:", torch.equal(torch.add(a, b, alpha=2), op(a, b, alpha=2)))
# --8<-- [end:binding]

# --8<-- [start:keyset]
# The dispatcher computes one key set per call: the union of the arguments'
# keys, plus the thread-local "included" set, minus the "excluded" set.
a = torch.ones(3)
print("tensor keys:  ", torch._C._dispatch_keys(a))
print("TLS included: ", torch._C._dispatch_tls_local_include_set())
print("TLS excluded: ", torch._C._dispatch_tls_local_exclude_set())
# --8<-- [end:keyset]
