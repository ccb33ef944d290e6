"""The dispatch keys of a tensor and how thread-local state changes the walk."""
import torch

# --8<-- [start:keys]
base = torch.ones(4)
cases = {
    "plain": base,
    "int64 dtype": torch.ones(4, dtype=torch.int64),
    "requires_grad": torch.ones(4, requires_grad=True),
    "meta device": torch.ones(4, device="meta"),
    "view base[1:]": base[1:],
    "sparse COO": base.to_sparse(),
    "conj view": torch.ones(4, dtype=torch.complex64).conj(),
}
for name, t in cases.items():
    print(f"{name:<15} {torch._C._dispatch_keys(t)}")
# --8<-- [end:keys]

# --8<-- [start:conj_fallback]
import os

os.environ.setdefault("KINETO_LOG_LEVEL", "6")  # as every page runs; for this file alone
from torch.profiler import ProfilerActivity, profile

z = torch.tensor([1 + 2j, 3 - 1j])
for label, arg in [("sin(z)", z), ("sin(z.conj())", z.conj())]:
    with profile(activities=[ProfilerActivity.CPU]) as prof:
        out = torch.sin(arg)
    ops = sorted({e.name for e in prof.events()})
    print(f"{label:14} is_conj: {arg.is_conj()!s:5} ops: {ops}")
print("same values as sin of a materialised conj:",
      torch.equal(torch.sin(z.conj()), torch.sin(z.conj_physical())))
# --8<-- [end:conj_fallback]

# --8<-- [start:tls]
DK = torch._C.DispatchKey


def excluded(key):
    """Is `key` in this thread's excluded set right now?"""
    return torch._C._dispatch_tls_local_exclude_set().has(key)


def autocast_row(op):
    """The kind of kernel in the AutocastCPU row of `op`'s table."""
    row = next(line for line in torch._C._dispatch_dump_table(op).splitlines()
               if line.startswith("AutocastCPU:"))
    return ("fallthrough " if "fallthrough" in row else "") + row[row.rindex("[") + 1:-1]


a, b = torch.ones(2, 2), torch.ones(2, 2)
print("outside autocast: AutocastCPU excluded =", excluded(DK.AutocastCPU))
with torch.autocast("cpu", dtype=torch.bfloat16):
    print("inside autocast:  AutocastCPU excluded =", excluded(DK.AutocastCPU))
    print("  mm  ->", torch.mm(a, b).dtype, "| AutocastCPU row:", autocast_row("aten::mm"))
    print("  add ->", torch.add(a, b).dtype, "| AutocastCPU row:", autocast_row("aten::add.Tensor"))
print("tensor keys unchanged:", torch._C._dispatch_keys(a))
# --8<-- [end:tls]
