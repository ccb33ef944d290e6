"""Dumping the dispatcher's view of an operator and of a tensor (Setting up)."""
import torch

# --8<-- [start:dispatch_table]
table = torch._C._dispatch_dump_table("aten::mul.Tensor")
rows = table.splitlines()
print("rows in the table:", len(rows))
keep = ("CPU:", "CUDA:", "Meta:", "BackendSelect:", "Python:",
        "ADInplaceOrView:", "AutogradCPU:", "AutocastCPU:")
for row in rows:
    if row.startswith(keep):
        print(row)
# --8<-- [end:dispatch_table]

# --8<-- [start:dispatch_keys]
plain = torch.ones(3)
leaf = torch.ones(3, requires_grad=True)
meta = torch.ones(3, device="meta")
sparse = torch.ones(3).to_sparse()
with torch.inference_mode():
    inference = torch.ones(3)
for name, t in [("plain", plain), ("requires_grad", leaf), ("meta", meta),
                ("sparse", sparse), ("inference_mode", inference)]:
    print(f"{name:>14}: {torch._C._dispatch_keys(t)}")
# --8<-- [end:dispatch_keys]
