# %% [markdown]
# # 数据加载动手练习：批次、工作进程及其种子
# <!-- translates dab142033bd3 -->
#
# 四道练习，配合[数据加载](../data-loading.md)一章，按读者搭建一个数据加载器的顺序排列：
# 把长度不同的样本组成批次的 `collate_fn`；决定哪些样本同在一个批次的批采样器
# (batch sampler)；在工作进程之间分配数据流的 `IterableDataset`；以及让每个工作进程
# 得到各自随机数的 `worker_init_fn`。每道练习有一个待补全的单元格（其中写着 `...`）、
# 一份参考答案（默认折叠：请先自己尝试），以及一个检查单元格：它输出 `correct`，
# 或者指出哪里错了、为什么错。检查的是机制，而不是某一个值：
# 只对最直观的情形成立的答案过不了检查。
#
# 练习方法：下载笔记本，补全一个单元格并运行，然后运行参考答案下方的检查单元格
# （不要运行参考答案本身，它会覆盖你的答案）。
# 笔记本中的每个单元格都由构建用页首注明的 torch 运行过。
# 检查单元格会启动带两个工作进程的加载器，工作进程像在 Linux 上一样用 fork 创建。

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
# ## 练习 1：长度不同的一个批次 {#a-ragged-batch}
# <!-- translates d2c7c66d9084 -->
#
# 加载器默认的
# [`default_collate`](pytorch:torch/utils/data/_utils/collate.py#default_collate)
# 把一个批次的样本堆叠 (stack) 起来，这要求它们形状相同。写一个 `collate_fn`：
# `pad_collate` 接收一个批次的序列列表，返回 `(padded, lengths)`：`padded`
# 每个样本占一行，行长等于该批次中最长的样本，每行是它的样本后面补零；
# `lengths` 是各样本长度组成的张量。检查单元格在 `batch_size=3`、两个工作进程的加载器中运行它：
# 每个工作进程对自己做的批次调用 collate。

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
# ## 练习 2：哪些样本同在一个批次 {#which-samples-share-a-batch}
# <!-- translates 6e83b246a5be -->
#
# 采样器 (sampler) 产出索引，由加载器切成批次；批采样器产出整个批次，即索引列表，
# 加载器把它们依次分给各工作进程，并按产出的顺序返回
# （[`_MultiProcessingDataLoaderIter`](pytorch:torch/utils/data/dataloader.py#_MultiProcessingDataLoaderIter)）。
# 补零是白费的计算，所以请补全 `LengthBuckets.__iter__`：每个批次里是长度相邻的样本，
# 每个 epoch 中每个样本恰好出现一次，批次的顺序每个 epoch 由 `self.generator` 打乱，
# 这样设了种子的生成器会重复同样的顺序。

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
# ## 练习 3：一个数据流，两个工作进程 {#one-stream-two-workers}
# <!-- translates 22cb806d94b4 -->
#
# [`IterableDataset`](pytorch:torch/utils/data/dataset.py#IterableDataset)
# 没有可以分发的索引：每个工作进程在自己的数据集副本上调用 `iter()`
# （[`_IterableDatasetFetcher`](pytorch:torch/utils/data/_utils/fetch.py#_IterableDatasetFetcher)），
# 数据集必须只产出自己那一份。补全 `ShardedRange.__iter__`，使
# `DataLoader(ShardedRange(n), num_workers=k)` 对任意 `n` 和任意 `k`（包括 `0`）
# 恰好产出 `0 .. n-1` 中的每个数一次。在工作进程中，
# [`get_worker_info()`](pytorch:torch/utils/data/_utils/worker.py#get_worker_info)
# 给出它的 `id` 和 `num_workers`；在主进程中它返回 `None`。

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
# ## 练习 4：每个工作进程一个种子 {#a-seed-per-worker}
# <!-- translates 0408ee859732 -->
#
# `Jitter`（定义在 setup 单元格中）从它在 `__init__` 里创建的 NumPy `Generator` 抽取随机数。
# 每个工作进程得到数据集的一个副本，其中的生成器处于相同的状态，所以两个工作进程抽到相同的
# “随机”数。[`_worker_loop`](pytorch:torch/utils/data/_utils/worker.py#_worker_loop)
# 会在每个工作进程中为 torch、`random` 和 NumPy 的全局生成器设置种子，种子因工作进程而异、
# 因 epoch 而异（`get_worker_info().seed`，取自加载器的 `generator`），
# 但它无从知道数据集自己的生成器。写出 `worker_init_fn`，使抽到的数在工作进程之间不同、
# 在 epoch 之间不同，而且用同一个设了种子的 `generator` 的加载器会重复这些数。

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
