"""Mistakes readers make with DDP: the sampler's epoch, and changing the model after wrapping it."""

from snippets.distributed.ranks import dist, run_ranks, show, torch  # noqa: F401

# isort: split

# --8<-- [start:sampler_epoch]
from torch.utils.data import DistributedSampler

dataset = list(range(8))
for rank in range(2):  # a sampler needs no process group when given num_replicas and rank
    sampler = DistributedSampler(dataset, num_replicas=2, rank=rank, shuffle=True, seed=0)
    print(f"rank {rank}, no set_epoch:", [list(sampler) for epoch in range(3)])
for rank in range(2):
    sampler = DistributedSampler(dataset, num_replicas=2, rank=rank, shuffle=True, seed=0)
    epochs = []
    for epoch in range(3):
        sampler.set_epoch(epoch)  # the shuffle is seeded with seed + epoch
        epochs.append(list(sampler))
    print(f"rank {rank}, set_epoch(e):  ", epochs)
for drop_last in (False, True):  # 7 items do not split evenly over 2 ranks
    split = [list(DistributedSampler(range(7), 2, r, shuffle=False, drop_last=drop_last))
             for r in range(2)]
    print(f"7 items, drop_last={drop_last}:", split)
# --8<-- [end:sampler_epoch]


# --8<-- [start:after_wrap]
from torch import nn  # noqa: E402
from torch.nn.parallel import DistributedDataParallel as DDP  # noqa: E402


def grows_after_wrap(rank, world_size):
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(4, 4))
    ddp = DDP(model)  # the Reducer's buckets are fixed here, with the parameters that exist now
    model.append(nn.Linear(4, 1))  # added after wrapping: its parameters are in no bucket
    torch.manual_seed(rank)  # each rank its own batch, as a DistributedSampler would give
    ddp(torch.randn(8, 4)).sum().backward()
    return [p.grad.sum().item() for p in (model[0].weight, model[1].weight)]


grads = run_ranks(grows_after_wrap)
print("layer 0 grad equal on both ranks:", grads[0][0] == grads[1][0], "(all-reduced)")
print("layer 1 grad equal on both ranks:", grads[0][1] == grads[1][1], "(never all-reduced: the replicas drift)")
# --8<-- [end:after_wrap]


# --8<-- [start:after_wrap_fix]
def wraps_last(rank, world_size):
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(4, 4), nn.Linear(4, 1))  # the final model first ...
    ddp = DDP(model)  # ... then wrap it
    torch.manual_seed(rank)
    ddp(torch.randn(8, 4)).sum().backward()
    return [p.grad.sum().item() for p in (model[0].weight, model[1].weight)]


grads = run_ranks(wraps_last)
print("layer 0 grad equal on both ranks:", grads[0][0] == grads[1][0])
print("layer 1 grad equal on both ranks:", grads[0][1] == grads[1][1])
# --8<-- [end:after_wrap_fix]
