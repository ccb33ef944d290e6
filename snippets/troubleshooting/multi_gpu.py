"""Row 5: one GPU uses more memory than the others."""
import torch
from torch import nn

# --8<-- [start:dp_cpu]
import io

dp = nn.DataParallel(nn.Linear(16, 4))
print("device_ids without a GPU:", dp.device_ids)
out = dp(torch.randn(8, 16))         # no devices: forward() calls the module directly
print("output device:", out.device)
# --8<-- [end:dp_cpu]

# --8<-- [start:dp_estimate]
GiB = 2**30
n_gpus, batch, seq, hidden, vocab = 4, 32, 1024, 1024, 50257
head = nn.Linear(hidden, vocab, device="meta")          # an LM head, never allocated
per_replica = head(torch.empty(batch // n_gpus, seq, hidden, device="meta"))
gathered = torch.empty(batch, seq, vocab, device="meta")  # what gather() builds on GPU 0
replica_gib = per_replica.numel() * per_replica.element_size() / GiB
gathered_gib = gathered.numel() * gathered.element_size() / GiB
print(f"logits per replica:   {tuple(per_replica.shape)}  {replica_gib:.2f} GiB on each GPU")
print(f"gathered on device 0: {tuple(gathered.shape)}  {gathered_gib:.2f} GiB more on GPU 0")
print(f"its gradient in backward, also on GPU 0: {gathered_gib:.2f} GiB")
# --8<-- [end:dp_estimate]

# --8<-- [start:load_location]
buf = io.BytesIO()
torch.save({"weight": torch.ones(2, 2)}, buf)           # on a GPU rank this records 'cuda:0'
locations = []


def record(storage, location):
    locations.append(location)                          # the device tag stored in the file
    return storage


buf.seek(0)
torch.load(buf, map_location=record)
print("location tags in the checkpoint:", locations)
buf.seek(0)
state = torch.load(buf, map_location="cpu")             # the fix: choose the device yourself
print("loaded onto:", state["weight"].device)
# --8<-- [end:load_location]

if torch.cuda.device_count() < 2:   # the region below is a GPU-only block (2+ GPUs)
    raise SystemExit(0)

# --8<-- [start:dp_gpu]
torch.manual_seed(0)
model = nn.Sequential(nn.Linear(1024, 4096), nn.ReLU(), nn.Linear(4096, 32000)).cuda()
dp = nn.DataParallel(model)
x = torch.randn(64, 1024, device="cuda")
loss = dp(x).logsumexp(dim=1).mean()
print("output gathered on:", dp.output_device)
for i in range(torch.cuda.device_count()):
    print(f"cuda:{i} peak allocated {torch.cuda.max_memory_allocated(i) / 2**20:8.1f} MiB")
loss.backward()
# --8<-- [end:dp_gpu]

# --8<-- [start:current_device]
print("current device, before any set_device:", torch.cuda.current_device())
print("where .cuda() puts a tensor:", torch.ones(1).cuda().device)
last = torch.cuda.device_count() - 1
torch.cuda.set_device(last)  # what the rank that owns this GPU does first
print(f"after set_device({last}):", torch.ones(1).cuda().device)
# --8<-- [end:current_device]
