"""Layer 2: the dispatch keys of the inputs and the key the dispatcher picks."""
import torch

a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
b = torch.tensor([4.0, 5.0, 6.0], requires_grad=True)

# --8<-- [start:keys]
K = torch._C.DispatchKey
ks = torch._C._dispatch_keys(a) | torch._C._dispatch_keys(b)
included = torch._C._dispatch_tls_local_include_set()
excluded = torch._C._dispatch_tls_local_exclude_set()
print("keys(a) | keys(b)   :", ks)
print("thread-local include:", included)
print("thread-local exclude:", excluded)
after_tls = (ks | included).remove(K.AutocastCPU)   # minus the exclude set
print("with include, without exclude:", after_tls)
# The operator's mask: its keys whose kernel is not a fallthrough (the table of Layer 3)
table = torch._C._dispatch_dump_table("aten::mul.Tensor")
rows = table.splitlines()
fallthrough = {row.split(":")[0] for row in rows if ": fallthrough " in row}
effective = after_tls
for key in [k for k in K.__members__.values() if after_tls.has(k)]:
    if key.name in fallthrough:
        print("fallthrough for mul, masked out:", key.name)
        effective = effective.remove(key)
print("key set the dispatcher uses:", effective)
print("highest priority    :", effective.highestPriorityTypeId())
below = effective & torch._C._dispatch_keyset_full_after(K.AutogradCPU)
print("left for the redispatch after AutogradCPU:", below)
# --8<-- [end:keys]

# --8<-- [start:inference_keys]
def autograd_excluded():
    return torch._C._dispatch_tls_local_exclude_set().has(K.AutogradOther)


with torch.no_grad():
    print("no_grad        | autograd keys excluded:", autograd_excluded(),
          "| (a * b).grad_fn:", (a * b).grad_fn)
with torch.inference_mode():
    print("inference_mode | autograd keys excluded:", autograd_excluded(),
          "| (a * b).grad_fn:", (a * b).grad_fn)
    fresh = torch.ones(3)
print("keys of a tensor made in inference_mode:", torch._C._dispatch_keys(fresh))
print("torch.add(a, fresh).grad_fn:", torch.add(a, fresh).grad_fn.name())  # no saves
try:
    torch.mul(a, fresh)               # a requires grad, so mul must save fresh
except RuntimeError as e:
    print(f"torch.mul(a, fresh): RuntimeError: {e}")
# --8<-- [end:inference_keys]
