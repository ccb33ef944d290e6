# %% [markdown]
# # Data loading lab: batches, workers and their seeds
#
# Four exercises on the [Data loading](../data-loading.md) chapter, in the order a
# reader builds a loader: a `collate_fn` that batches samples of different lengths, a
# batch sampler that decides which samples share a batch, an `IterableDataset` that
# shares its stream among the workers, and a `worker_init_fn` that gives each worker
# its own random numbers. Each exercise has a cell to complete (it holds `...`), a
# worked solution (folded: try first), and a check that prints `correct`, or what is
# wrong and why. The checks test the mechanism, not one value: an answer that only
# fits the obvious case fails.
#
# To work through it, download the notebook, complete a cell, run it, and run the
# check below its solution (not the solution itself, which would replace your answer).
# Every cell of the notebook was run by the build with the torch named at its top.
# The checks start loaders with two worker processes, forked as on Linux.

# %% tags=["setup"]
import math
import multiprocessing as mp
import warnings

import numpy as np
import torch
from torch.utils.data import (
    DataLoader,
    Dataset,
    IterableDataset,
    Sampler,
    get_worker_info,
)

torch.manual_seed(0)
mp.set_start_method("fork", force=True)  # workers are forked copies (macOS: spawn)
# Python 3.12+ warns when a process with threads forks, and DataLoader warns when two
# workers exceed the cores this machine grants: neither is about the exercises.
warnings.filterwarnings("ignore", r"This process \(pid=\d+\) is multi", Warning)
warnings.filterwarnings("ignore", "This DataLoader will create", UserWarning)

# Ten sequences of different lengths; no value is 0, which is free for padding.
lengths = [3, 1, 4, 1, 5, 9, 2, 6, 5, 3]
sequences = [torch.arange(1, n + 1) * 10 + i for i, n in enumerate(lengths)]
print(sequences[:2])


class Jitter(Dataset):
    """Item i: a random offset for sample i, from a NumPy Generator the dataset owns."""

    def __init__(self):
        self.rng = np.random.default_rng(0)  # made once, in the main process

    def __len__(self):
        return 8

    def __getitem__(self, i):
        return round(float(self.rng.random()), 6)

# %% [markdown]
# ## Exercise 1: a batch of different lengths {#a-ragged-batch}
#
# The loader's default
# [`default_collate`](pytorch:torch/utils/data/_utils/collate.py#default_collate)
# stacks a batch's samples, which needs them all the same shape. Write `pad_collate`,
# a `collate_fn` that receives the list of a batch's sequences and returns `(padded,
# lengths)`: `padded` has one row per sample, as long as the batch's longest, each row
# its sample followed by zeros, and `lengths` is a tensor of the samples' lengths. The
# check runs it in a loader with `batch_size=3` and two workers: each worker collates
# the batches it makes.

# %% tags=["starter"] exercise="pad-collate"
def pad_collate(batch):
    """(padded, lengths) for a list of 1-D tensors of different lengths."""
    ...

# %% tags=["solution"]
def pad_collate(batch):
    """(padded, lengths) for a list of 1-D tensors of different lengths."""
    padded = torch.nn.utils.rnn.pad_sequence(batch, batch_first=True)
    return padded, torch.tensor([len(s) for s in batch])

# %% tags=["check"]
def check_pad_collate():
    loader = DataLoader(sequences, batch_size=3, collate_fn=pad_collate, num_workers=2)
    try:
        batches = list(loader)
    except Exception as error:
        return (
            f"wrong: the loader raised; the worker's error ends with "
            f"{str(error).strip().splitlines()[-1]!r}. A batch of different lengths "
            "cannot be stacked as it is: pad each sample to the batch's longest first."
        )
    for number, batch in enumerate(batches):
        samples = sequences[3 * number : 3 * number + 3]
        if not isinstance(batch, (tuple, list)) or len(batch) != 2:
            return f"wrong: pad_collate returns (padded, lengths), not {type(batch)}"
        padded, lengths = batch
        shape = (len(samples), max(len(s) for s in samples))
        if tuple(padded.shape) != shape:
            return (
                f"wrong: batch {number} has samples of lengths "
                f"{[len(s) for s in samples]}, so its padded shape is {shape} (one row "
                f"per sample), not {tuple(padded.shape)}. pad_sequence puts the batch "
                "second unless batch_first=True."
            )
        if lengths.tolist() != [len(s) for s in samples]:
            return f"wrong: batch {number}'s lengths are not {lengths.tolist()}"
        for row, sample in zip(padded, samples):
            if not torch.equal(row[: len(sample)], sample) or row[len(sample) :].any():
                return f"wrong: in batch {number}, a row is not its sample then zeros"
    return "correct"


print(check_pad_collate())

# %% tags=["mistake"]
def pad_collate(batch):
    # What default_collate does: stack the samples as they are.
    return torch.stack(batch), torch.tensor([len(s) for s in batch])

# %% tags=["mistake"]
def pad_collate(batch):
    # pad_sequence's default layout is (longest, batch).
    padded = torch.nn.utils.rnn.pad_sequence(batch)
    return padded, torch.tensor([len(s) for s in batch])

# %% [markdown]
# ## Exercise 2: which samples share a batch {#which-samples-share-a-batch}
#
# A sampler yields indices and the loader cuts them into batches; a batch sampler
# yields whole batches, lists of indices, which the loader hands to its workers in
# turn and returns in the order they were yielded
# ([`_MultiProcessingDataLoaderIter`](pytorch:torch/utils/data/dataloader.py#_MultiProcessingDataLoaderIter)).
# Padding is wasted work, so complete `LengthBuckets.__iter__`: each batch holds
# samples of neighbouring lengths, every sample once per epoch, and the order of the
# batches is shuffled each epoch by `self.generator`, so that a seeded generator
# repeats it.

# %% tags=["starter"] exercise="length-buckets"
class LengthBuckets(Sampler):
    """Batches of indices of similar lengths, in an order shuffled each epoch."""

    def __init__(self, lengths, batch_size, generator):
        self.lengths, self.batch_size, self.generator = lengths, batch_size, generator

    def __len__(self):
        return math.ceil(len(self.lengths) / self.batch_size)

    def __iter__(self):
        ...

# %% tags=["solution"]
class LengthBuckets(Sampler):
    """Batches of indices of similar lengths, in an order shuffled each epoch."""

    def __init__(self, lengths, batch_size, generator):
        self.lengths, self.batch_size, self.generator = lengths, batch_size, generator

    def __len__(self):
        return math.ceil(len(self.lengths) / self.batch_size)

    def __iter__(self):
        by_length = sorted(range(len(self.lengths)), key=self.lengths.__getitem__)
        size = self.batch_size
        batches = [by_length[i : i + size] for i in range(0, len(by_length), size)]
        for b in torch.randperm(len(batches), generator=self.generator).tolist():
            yield batches[b]

# %% tags=["check"]
def check_length_buckets():
    def epochs(seed):
        sampler = LengthBuckets(lengths, 3, torch.Generator().manual_seed(seed))
        # The dataset is the indices themselves: each batch shows which samples it has.
        loader = DataLoader(range(len(lengths)), batch_sampler=sampler, num_workers=2)
        return [[batch.tolist() for batch in loader] for _ in range(2)], len(sampler)

    try:
        list(LengthBuckets(lengths, 3, torch.Generator().manual_seed(0)))
    except Exception as error:
        return (
            f"wrong: iterating the sampler raised {type(error).__name__}: {error}. "
            "__iter__ yields the epoch's batches, each a list of indices."
        )
    (first, second), count = epochs(0)
    for batches in (first, second):
        if sorted(i for batch in batches for i in batch) != list(range(len(lengths))):
            return f"wrong: an epoch must hold every sample once, not {batches}"
        if len(batches) != count or any(len(batch) > 3 for batch in batches):
            return f"wrong: {count} batches of at most 3 samples, not {batches}"
        for batch in batches:
            low, high = min(lengths[i] for i in batch), max(lengths[i] for i in batch)
            between = [i for i in range(len(lengths)) if i not in batch]
            if any(low < lengths[i] < high for i in between):
                return (
                    f"wrong: batch {batch} has lengths {[lengths[i] for i in batch]}, "
                    "while samples of lengths between them are in other batches: sort "
                    "the indices by length, then cut them into batches."
                )
    if first == second:
        return (
            f"wrong: both epochs gave the batches in the same order, {first}: every "
            "epoch would start with the same samples. Shuffle the batches with "
            "self.generator, which moves on with each epoch."
        )
    sampler = LengthBuckets(lengths, 3, torch.Generator().manual_seed(0))
    if [list(sampler), list(sampler)] != [first, second]:
        return (
            "wrong: a sampler with the same seeded generator yields other batches "
            "than the loader returned: shuffle with self.generator alone."
        )
    return "correct"


print(check_length_buckets())

# %% tags=["mistake"]
class LengthBuckets(Sampler):
    """Sorted by length and cut into batches: the same order every epoch."""

    def __init__(self, lengths, batch_size, generator):
        self.lengths, self.batch_size, self.generator = lengths, batch_size, generator

    def __len__(self):
        return math.ceil(len(self.lengths) / self.batch_size)

    def __iter__(self):
        by_length = sorted(range(len(self.lengths)), key=self.lengths.__getitem__)
        size = self.batch_size
        yield from [by_length[i : i + size] for i in range(0, len(by_length), size)]

# %% tags=["mistake"]
class LengthBuckets(Sampler):
    """Shuffled, then cut into batches: random batches, any lengths together."""

    def __init__(self, lengths, batch_size, generator):
        self.lengths, self.batch_size, self.generator = lengths, batch_size, generator

    def __len__(self):
        return math.ceil(len(self.lengths) / self.batch_size)

    def __iter__(self):
        order = torch.randperm(len(self.lengths), generator=self.generator).tolist()
        size = self.batch_size
        yield from [order[i : i + size] for i in range(0, len(order), size)]

# %% [markdown]
# ## Exercise 3: one stream, two workers {#one-stream-two-workers}
#
# An [`IterableDataset`](pytorch:torch/utils/data/dataset.py#IterableDataset) has no
# indices to deal out: each worker calls `iter()` on its own copy of the dataset
# ([`_IterableDatasetFetcher`](pytorch:torch/utils/data/_utils/fetch.py#_IterableDatasetFetcher)),
# and the dataset must keep to its share. Complete `ShardedRange.__iter__` so that
# `DataLoader(ShardedRange(n), num_workers=k)` yields each of `0 .. n-1` exactly once,
# for any `n` and any `k`, `0` included. Inside a worker,
# [`get_worker_info()`](pytorch:torch/utils/data/_utils/worker.py#get_worker_info)
# gives its `id` and `num_workers`; in the main process it returns `None`.

# %% tags=["starter"] exercise="sharded-range"
class ShardedRange(IterableDataset):
    """The numbers 0 .. n-1, shared among the loader's workers."""

    def __init__(self, n):
        self.n = n

    def __iter__(self):
        ...

# %% tags=["solution"]
class ShardedRange(IterableDataset):
    """The numbers 0 .. n-1, shared among the loader's workers."""

    def __init__(self, n):
        self.n = n

    def __iter__(self):
        info = get_worker_info()
        first, step = (0, 1) if info is None else (info.id, info.num_workers)
        return iter(range(first, self.n, step))

# %% tags=["check"]
def check_sharded_range():
    for workers in (2, 0):
        for n in (7, 1):
            loader = DataLoader(ShardedRange(n), batch_size=None, num_workers=workers)
            try:
                got = sorted(int(x) for x in loader)
            except Exception as error:
                last = str(error).strip().splitlines()[-1]
                hint = (
                    " With no workers, get_worker_info() is None and the dataset "
                    "yields everything."
                )
                return (
                    f"wrong: with num_workers={workers} the loader raised {last!r}."
                    + (hint if workers == 0 else "")
                )
            twice = sorted({x for x in got if got.count(x) > 1})
            missing = sorted(set(range(n)) - set(got))
            if twice:
                return (
                    f"wrong: with n={n} and num_workers={workers}, {twice} came more "
                    "than once: each worker iterates its own copy of the dataset from "
                    "the start, so each must yield only its share."
                )
            if missing:
                return (
                    f"wrong: with n={n} and num_workers={workers}, {missing} never "
                    "came: the shares must cover every sample, the remainder of "
                    "n / num_workers included."
                )
    return "correct"


print(check_sharded_range())

# %% tags=["mistake"]
class ShardedRange(IterableDataset):
    """Not sharded: what every worker yields."""

    def __init__(self, n):
        self.n = n

    def __iter__(self):
        return iter(range(self.n))

# %% tags=["mistake"]
class ShardedRange(IterableDataset):
    """Contiguous shares of n // num_workers samples each."""

    def __init__(self, n):
        self.n = n

    def __iter__(self):
        info = get_worker_info()
        if info is None:
            return iter(range(self.n))
        share = self.n // info.num_workers
        return iter(range(info.id * share, (info.id + 1) * share))

# %% [markdown]
# ## Exercise 4: a seed per worker {#a-seed-per-worker}
#
# `Jitter` (in the setup cell) draws from a NumPy `Generator` made in its `__init__`.
# Each worker gets a copy of the dataset, its generator in the same state, so both
# workers draw the same "random" numbers.
# [`_worker_loop`](pytorch:torch/utils/data/_utils/worker.py#_worker_loop) seeds
# torch, `random` and NumPy's global generator in each worker, from a seed that
# differs per worker and per epoch (`get_worker_info().seed`, drawn from the loader's
# `generator`), but it cannot know about the dataset's own generator. Write
# `worker_init_fn` so that the numbers differ between workers and between epochs, and
# a loader with the same seeded `generator` repeats them.

# %% tags=["starter"] exercise="worker-seeds"
def worker_init_fn(worker_id):
    """Runs in each worker before its first item: reseed this worker's dataset."""
    ...

# %% tags=["solution"]
def worker_init_fn(worker_id):
    """Runs in each worker before its first item: reseed this worker's dataset."""
    info = get_worker_info()
    info.dataset.rng = np.random.default_rng(info.seed)  # this worker's copy

# %% tags=["check"]
def check_worker_seeds():
    def epochs(seed):
        generator = torch.Generator().manual_seed(seed)
        loader = DataLoader(
            Jitter(), batch_size=None, num_workers=2,
            worker_init_fn=worker_init_fn, generator=generator,
        )
        return [list(loader) for _ in range(2)]

    first, second = epochs(0)
    if len(set(first)) < len(first):
        return (
            f"wrong: in one epoch the workers drew {first}: worker 0 made the even "
            "items and worker 1 the odd ones, from copies of one generator in one "
            "state. Reseed the dataset's own generator, info.dataset.rng, in each "
            "worker."
        )
    if first == second:
        return (
            "wrong: the second epoch drew the same numbers as the first: the seed you "
            "used does not change between epochs. get_worker_info().seed does: each "
            "new iterator draws a new base seed from the loader's generator."
        )
    if epochs(0) != [first, second]:
        return (
            "wrong: a loader with the same seeded generator drew other numbers: seed "
            "from get_worker_info().seed, which comes from that generator, not from "
            "the operating system."
        )
    return "correct"


print(check_worker_seeds())

# %% tags=["mistake"]
def worker_init_fn(worker_id):
    # The forums' fix, for NumPy's global generator: the dataset does not use it.
    np.random.seed(get_worker_info().seed % 2**32)

# %% tags=["mistake"]
def worker_init_fn(worker_id):
    # A different seed per worker, but the same one every epoch.
    get_worker_info().dataset.rng = np.random.default_rng(worker_id)

# %% tags=["mistake"]
def worker_init_fn(worker_id):
    # Fresh entropy from the operating system: different, but never repeatable.
    get_worker_info().dataset.rng = np.random.default_rng()
