"""Where autocast sits in dispatch: the Autocast keys, the thread's excluded set, the state."""
# --8<-- [start:keys]
import torch

x = torch.randn(4, 4)
print("tensor's keys:      ", torch._C._dispatch_keys(x))
print("excluded, outside:  ", torch._C._dispatch_tls_local_exclude_set())
with torch.autocast("cpu", dtype=torch.bfloat16):
    print("excluded, inside:   ", torch._C._dispatch_tls_local_exclude_set())
    print("tensor's keys inside:", torch._C._dispatch_keys(x))
print("excluded, after:    ", torch._C._dispatch_tls_local_exclude_set())
# --8<-- [end:keys]

# --8<-- [start:state]
def state(label):
    print(f"{label:<14} enabled={torch.is_autocast_enabled('cpu')!s:<5} "
          f"dtype={torch.get_autocast_dtype('cpu')}  cache={torch.is_autocast_cache_enabled()}")


state("outside")
with torch.autocast("cpu", dtype=torch.bfloat16):
    state("bf16 region")
    with torch.autocast("cpu", dtype=torch.float16):
        state("nested fp16")
        with torch.autocast("cpu", enabled=False):
            state("disabled")
        print("mm in nested fp16 ->", (x @ x).dtype)
    state("back in bf16")
state("outside again")
# --8<-- [end:state]
