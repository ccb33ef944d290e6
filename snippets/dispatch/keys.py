"""The dispatch keys of a tensor and how thread-local state changes the walk."""
import torch

# --8<-- [start:keys]
base = torch.ones(4)
with torch.inference_mode():
    inf = torch.ones(4)
cases = {
    "plain": base,
    "int64 dtype": torch.ones(4, dtype=torch.int64),
    "requires_grad": torch.ones(4, requires_grad=True),
    "inference_mode": inf,
    "meta device": torch.ones(4, device="meta"),
    "view base[1:]": base[1:],
    "sparse COO": base.to_sparse(),
    "conj view": torch.ones(4, dtype=torch.complex64).conj(),
}
for name, t in cases.items():
    print(f"{name:<15} {torch._C._dispatch_keys(t)}")
# --8<-- [end:keys]

# --8<-- [start:tls]
DK = torch._C.DispatchKey


def autograd_skipped():
    """Is the Autograd functionality excluded for this thread right now?"""
    return torch._C._dispatch_tls_local_exclude_set().has(DK.AutogradFunctionality)


print("plain:          autograd kernel skipped =", autograd_skipped())
with torch.no_grad():
    print("no_grad:        autograd kernel skipped =", autograd_skipped())
with torch.inference_mode():
    print("inference_mode: autograd kernel skipped =", autograd_skipped())

x = torch.ones(2, requires_grad=True)
with torch.no_grad():
    y = x * 2
print("no_grad result: requires_grad =", y.requires_grad, "| keys:", torch._C._dispatch_keys(y))
# --8<-- [end:tls]
