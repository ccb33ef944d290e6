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

# --8<-- [start:gc_delay]
def peak_alive(steps, n=1_000):
    """Create and drop one self-referencing buffer per step; return the most alive at once."""
    watch, peak = [], 0
    for _ in range(steps):
        watch.append(LeakyBuffer(n).buffer_alive)     # the object is garbage at once
        peak = max(peak, sum(w() is not None for w in watch))
    return peak, sum(w() is not None for w in watch)


print("thresholds:", gc.get_threshold())
gc.collect()
gc.disable()
print("gc disabled: peak alive, alive at end:", peak_alive(300))
print("gc.collect() frees them:", gc.collect() > 0)
gc.enable()
gc.collect()
peak, end = peak_alive(300)
print("gc enabled:  peak alive > 100:", peak > 100, "| alive at end < peak:", end < peak)
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
