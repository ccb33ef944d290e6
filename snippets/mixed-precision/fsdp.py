"""FSDP2's MixedPrecisionPolicy on one CPU rank: mixed precision per module, not per op."""
# --8<-- [start:fsdp_policy]
import torch
import torch.distributed as dist
from torch.distributed.fsdp import MixedPrecisionPolicy, fully_shard

dist.init_process_group("gloo", store=dist.HashStore(), rank=0, world_size=1)
torch.manual_seed(0)
model = torch.nn.Sequential(torch.nn.Linear(8, 8), torch.nn.ReLU(), torch.nn.Linear(8, 1))
policy = MixedPrecisionPolicy(param_dtype=torch.bfloat16, reduce_dtype=torch.float32)
fully_shard(model[0], mp_policy=policy)
fully_shard(model[2], mp_policy=policy)
fully_shard(model, mp_policy=policy)

seen = {}
model[0].register_forward_pre_hook(  # runs after FSDP's own pre-forward hook
    lambda m, args: seen.update(input=str(args[0].dtype), weight=str(m.weight.dtype)))
saved = set()
with torch.autograd.graph.saved_tensors_hooks(lambda t: saved.add(str(t.dtype)) or t,
                                              lambda t: t):
    out = model(torch.randn(4, 8))  # a float32 batch
print("inside layer 0:", seen)
print("output:", out.dtype, "| saved for backward:", sorted(saved))
out.float().pow(2).mean().backward()  # the loss in float32
w = model[0].weight
print("after backward, weight:", type(w).__name__, w.dtype, "| grad:", w.grad.dtype)
dist.destroy_process_group()
# --8<-- [end:fsdp_policy]
