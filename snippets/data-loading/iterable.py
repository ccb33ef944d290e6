"""IterableDataset with workers: each iterates the whole dataset unless it shards it."""

# --8<-- [start:duplicated]
import multiprocessing as mp

from torch.utils.data import DataLoader, IterableDataset, get_worker_info

mp.set_start_method("fork", force=True)  # as every example here (macOS defaults to spawn)


def who():
    info = get_worker_info()
    return "main" if info is None else f"w{info.id}"


class Stream(IterableDataset):
    """Yields (who made it, sample): a stand-in for the lines of a file."""

    def __init__(self, n):
        self.n = n

    def __iter__(self):
        for i in range(self.n):
            yield who(), i


print("num_workers=0:", list(DataLoader(Stream(4), batch_size=None)))
print("num_workers=2:", list(DataLoader(Stream(4), batch_size=None, num_workers=2)))
# --8<-- [end:duplicated]


# --8<-- [start:sharded]
class ShardedStream(Stream):
    def __iter__(self):
        info = get_worker_info()
        first, step = (0, 1) if info is None else (info.id, info.num_workers)
        for i in range(first, self.n, step):  # worker k: samples k, k + step, ...
            yield who(), i


print("num_workers=0:", list(DataLoader(ShardedStream(4), batch_size=None)))
print("num_workers=2:", list(DataLoader(ShardedStream(4), batch_size=None, num_workers=2)))
for drop_last in (False, True):
    loader = DataLoader(ShardedStream(6), batch_size=2, num_workers=2, drop_last=drop_last)
    batches = [samples.tolist() for _, samples in loader]
    print(f"6 samples, batch_size=2, drop_last={drop_last}:", batches)
# --8<-- [end:sharded]
