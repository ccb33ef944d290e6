"""Reference cycles: the collector frees them; the cost is the wait."""
import gc
import weakref

import numpy as np
import torch

# --8<-- [start:tracked]
def tracked_zeros(n):
    """A float32 tensor whose buffer is a NumPy array we can watch with a weakref."""
    arr = np.zeros(n, dtype=np.float32)
    return torch.from_numpy(arr), weakref.ref(arr)


class LeakyBuffer:
    def __init__(self, n):
        self.data, self.buffer_alive = tracked_zeros(n)
        self.me = self                       # a reference cycle


gc.collect()
buf = LeakyBuffer(1_000_000)                 # 4 MB
buffer_alive = buf.buffer_alive
del buf
print("after del:         4 MB buffer alive:", buffer_alive() is not None)
print("gc.collect() found unreachable objects:", gc.collect() > 0)
print("after gc.collect:  4 MB buffer alive:", buffer_alive() is not None)
# --8<-- [end:tracked]

# --8<-- [start:through_tensor]
t, alive_attr = tracked_zeros(1_000_000)
t.me = t                                     # a cycle through the tensor's own __dict__
del t
print("tensor.me = tensor:       after del alive:", alive_attr() is not None, end=" | ")
gc.collect()
print("after gc.collect alive:", alive_attr() is not None)


def with_hook():
    t, alive = tracked_zeros(1_000_000)
    t.requires_grad_()
    t.register_hook(lambda grad: grad * t.sum())   # the hook's closure holds t
    return alive


alive_hook = with_hook()
print("hook that refers to it:   after return alive:", alive_hook() is not None, end=" | ")
gc.collect()
print("after gc.collect alive:", alive_hook() is not None)
# --8<-- [end:through_tensor]

# --8<-- [start:gc_count]
def containers_per_call(make, calls=100):
    """How many objects the collector's generation-0 count grows by per make() call."""
    make()                                   # warm-up: first calls may fill caches
    gc.collect()                             # empties generation 0
    gc.disable()
    before = gc.get_count()[0]
    kept = [make() for _ in range(calls)]
    grown = gc.get_count()[0] - before - 1   # minus the list `kept` itself
    gc.enable()
    return round(grown / calls)


print("thresholds:", gc.get_threshold())
print("per 4-byte tensor:      ", containers_per_call(lambda: torch.empty(1)))
print("per 4 MB tensor:        ", containers_per_call(lambda: torch.empty(1_000_000)))
print("per dead LeakyBuffer:   ", containers_per_call(lambda: LeakyBuffer(1_000).buffer_alive))
# --8<-- [end:gc_count]

# --8<-- [start:gc_delay]
def peak_alive(steps, n=1_000):
    """Create and drop one self-referencing buffer per step; return the most alive at once."""
    watch, peak = [], 0
    for _ in range(steps):
        watch.append(LeakyBuffer(n).buffer_alive)     # the object is garbage at once
        peak = max(peak, sum(w() is not None for w in watch))
    return peak, sum(w() is not None for w in watch)


def count_collections(phase, info):
    if phase == "start" and info["generation"] == 0:
        collections.append(info)


per_step = containers_per_call(lambda: LeakyBuffer(1_000).buffer_alive)
threshold = gc.get_threshold()[0]
steps = round(3 * threshold / per_step)          # long enough for a few collections, whatever the threshold
print("steps:", steps)
gc.collect()
gc.disable()
print("gc disabled: peak alive, alive at end:", peak_alive(steps))
print("gc.collect() frees them:", gc.collect() > 0)
gc.enable()
gc.collect()
collections = []
gc.callbacks.append(count_collections)
peak, end = peak_alive(steps)
gc.callbacks.remove(count_collections)
interval = threshold / per_step             # steps between two collections, predicted
print("threshold / objects per step:", round(interval))
print("gc enabled: collected generation 0 at least twice:", len(collections) >= 2)
# the exact peak depends on what else allocates (an IPython kernel does); its size does not
print("gc enabled: peak alive within 0.5x to 1.2x of that:", 0.5 * interval <= peak <= 1.2 * interval)
print("gc enabled: alive at end < steps:", end < steps)
# --8<-- [end:gc_delay]

# --8<-- [start:weakref_backref]
class Buffer:
    def __init__(self, n):
        self.data, self.buffer_alive = tracked_zeros(n)
        self.me = weakref.ref(self)          # a back-reference that does not own


gc.disable()
buf = Buffer(1_000_000)
buffer_alive = buf.buffer_alive
print("before del: 4 MB buffer alive:", buffer_alive() is not None)
del buf                                      # refcount reaches zero right here
print("after del:  4 MB buffer alive:", buffer_alive() is not None)
gc.enable()
# --8<-- [end:weakref_backref]
