"""What a CPU tensor's storage owns, and how a small view keeps a big buffer alive."""
# --8<-- [start:setup]
import gc
import io
import weakref

import numpy as np
import torch
from torch import nn

torch.manual_seed(0)
torch.set_printoptions(precision=4)
# --8<-- [end:setup]

# --8<-- [start:nbytes]
t = torch.empty(1000, 1000)          # float32: 4,000,000 bytes
row = t[1, :10]                      # a view of 10 elements
print("t   numel * element_size:", t.numel() * t.element_size())
print("t   storage nbytes:      ", t.untyped_storage().nbytes())
print("row numel * element_size:", row.numel() * row.element_size())
print("row storage nbytes:      ", row.untyped_storage().nbytes())
print("row storage_offset:      ", row.storage_offset())
print("same buffer:", row.untyped_storage().data_ptr() == t.untyped_storage().data_ptr())
# --8<-- [end:nbytes]

# --8<-- [start:alignment]
sizes = [1, 3, 17, 1000, 4097, 1_000_000]             # bytes, deliberately odd
storages = [torch.empty(n, dtype=torch.uint8) for n in sizes]
print("every storage starts on a 64-byte boundary:", all(s.data_ptr() % 64 == 0 for s in storages))
print("row starts this many bytes into t's buffer:", row.data_ptr() - t.data_ptr())
# --8<-- [end:alignment]

# --8<-- [start:view_keeps_alive]
buf = np.zeros(1_000_000, dtype=np.float32)   # 4 MB owned by NumPy
buf_alive = weakref.ref(buf)                   # tells us when the 4 MB are freed
big = torch.from_numpy(buf)    # the storage's DataPtr holds a reference to buf
del buf
head = big[:10]                # 40 bytes of data we want to keep
del big
print("bytes head uses:   ", head.numel() * head.element_size())
print("bytes head pins:   ", head.untyped_storage().nbytes())
print("4 MB buffer alive: ", buf_alive() is not None)
saved = io.BytesIO()
torch.save(head, saved)
print("torch.save(head) writes more than 4 MB:", saved.getbuffer().nbytes > 4_000_000)
# --8<-- [end:view_keeps_alive]

# --8<-- [start:clone_frees]
head = head.clone()            # a fresh 40-byte storage; the old one loses its last owner
print("bytes head pins:   ", head.untyped_storage().nbytes())
print("4 MB buffer alive: ", buf_alive() is not None)
saved = io.BytesIO()
torch.save(head, saved)
print("torch.save(head) writes under 2 kB:", saved.getbuffer().nbytes < 2_000)
# --8<-- [end:clone_frees]
