"""The weight-cast cache: one cast per leaf weight per autocast region, cleared on exit."""
# --8<-- [start:count]
import torch
from torch.utils._python_dispatch import TorchDispatchMode


class CountCasts(TorchDispatchMode):
    """Record every dtype cast (aten._to_copy; aten.to.dtype under inference_mode) and its shape."""

    CASTS = (torch.ops.aten._to_copy.default, torch.ops.aten.to.dtype)

    def __init__(self):
        super().__init__()
        self.casts = []

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        if func in self.CASTS:
            self.casts.append(tuple(args[0].shape))
        return func(*args, **(kwargs or {}))


torch.manual_seed(0)
lin = torch.nn.Linear(8, 8)                     # weight (8, 8) and bias (8,) require grad
x = torch.randn(2, 8)
for cache in (True, False):
    with CountCasts() as counter:
        with torch.autocast("cpu", dtype=torch.bfloat16, cache_enabled=cache):
            for _ in range(3):
                lin(x)
    print(f"cache_enabled={cache!s:<5} 3 calls -> {len(counter.casts)} casts: {counter.casts}")
# --8<-- [end:count]

# --8<-- [start:eligible]
w_frozen = torch.randn(8, 8)                    # a leaf, but requires_grad=False
w_train = torch.randn(8, 8, requires_grad=True)
w_view = w_train[:, :4]                         # not a leaf
for name, w in [("frozen leaf", w_frozen), ("trainable leaf", w_train), ("view of it", w_view)]:
    with CountCasts() as counter:
        with torch.autocast("cpu", dtype=torch.bfloat16):
            for _ in range(3):
                x @ w
    weight_casts = counter.casts.count(tuple(w.shape))
    print(f"{name:<20} casts of the weight in 3 calls: {weight_casts}")
with CountCasts() as counter:
    with torch.inference_mode(), torch.autocast("cpu", dtype=torch.bfloat16):
        for _ in range(3):
            x @ w_train
print(f"{'in inference_mode':<20} casts of the weight in 3 calls: {counter.casts.count((8, 8))}")
# --8<-- [end:eligible]

# --8<-- [start:stale]
w = torch.ones(2, 2, requires_grad=True)
x2 = torch.ones(1, 2)
with torch.autocast("cpu", dtype=torch.bfloat16):
    print("before update:", (x2 @ w).tolist())
    with torch.no_grad():
        w.mul_(3)                               # an optimizer step, inside the region
    print("after update: ", (x2 @ w).tolist(), "<- the cached bf16 copy of the old w")
    torch.clear_autocast_cache()
    print("cache cleared:", (x2 @ w).tolist())
with torch.autocast("cpu", dtype=torch.bfloat16):
    print("next region:  ", (x2 @ w).tolist())
# --8<-- [end:stale]

# --8<-- [start:nested]
with CountCasts() as counter:
    with torch.autocast("cpu", dtype=torch.bfloat16):
        lin(x)
        with torch.autocast("cpu", dtype=torch.bfloat16):
            lin(x)                              # inner region: the outer cache is reused
        lin(x)                                  # inner exit did not clear it
    with torch.autocast("cpu", dtype=torch.bfloat16):
        lin(x)                                  # a new outermost region: cast again
print("casts of the weight:", counter.casts.count((8, 8)))
# --8<-- [end:nested]

# --8<-- [start:threads]
import threading

w = torch.ones(2, 2, requires_grad=True)
seen = {}


def other_thread():
    seen["enabled outside its region"] = torch.is_autocast_enabled("cpu")
    with torch.autocast("cpu", dtype=torch.bfloat16):   # a region of its own
        seen["product"] = (x2 @ w).tolist()


with torch.autocast("cpu", dtype=torch.bfloat16):
    print("main thread, before update:  ", (x2 @ w).tolist())
    with torch.no_grad():
        w.mul_(3)
    worker = threading.Thread(target=other_thread)
    worker.start()
    worker.join()
    print("other thread: autocast enabled outside its region:", seen["enabled outside its region"])
    print("other thread, after update:  ", seen["product"], "<- the copy the main thread cached")
    print("main thread, after that exit:", (x2 @ w).tolist(), "<- the other thread's exit emptied the cache")
# --8<-- [end:threads]
