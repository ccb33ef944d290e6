"""Batching rules, and the fallback that runs an operator once per example."""
# ruff: noqa: E402, I001  (each region is a block of the page; its imports open it)
from batched import ShowOps, torch, vmap  # the page's earlier blocks

# --8<-- [start:table]
def batching_kernel(op):
    """The FuncTorchBatched entry of an operator's dispatch table: file and kind."""
    for line in torch._C._dispatch_dump_table(op).splitlines():
        if line.startswith("FuncTorchBatched:"):
            source, kind = line.split(" [")
            return f"{source.rsplit('/', 1)[1].split(':')[0]} [{kind}"
    return None


for op in ["aten::mv", "aten::add.Tensor", "aten::matmul", "aten::mse_loss_backward",
           "aten::take"]:
    print(f"{op:23} FuncTorchBatched -> {batching_kernel(op)}")
# --8<-- [end:table]

# --8<-- [start:warning]
import warnings


def first_and_last(row):  # row has 4 elements
    return torch.take(row, torch.tensor([0, 3]))


xs = torch.arange(12.0).reshape(3, 4)
with warnings.catch_warnings(record=True) as caught, ShowOps():
    warnings.simplefilter("always")
    out = vmap(first_and_last)(xs)
print("result:", out.tolist())
print("warning:", caught[0].message)
# --8<-- [end:warning]

# --8<-- [start:cost]
import statistics
import time


def seconds(fn, repeats=7):
    """Median CPU seconds of this thread for one call of fn (one warm-up call first)."""
    fn()
    times = []
    for _ in range(repeats):
        start = time.thread_time()
        fn()
        times.append(time.thread_time() - start)
    return statistics.median(times)


def first_and_last_indexed(row):  # the same result through indexing, which has a rule
    return row[torch.tensor([0, 3])]


batch = torch.randn(1024, 4)
print("same result:", torch.equal(vmap(first_and_last_indexed)(batch),
                                  torch.stack([first_and_last(r) for r in batch])))
with warnings.catch_warnings():
    warnings.simplefilter("ignore")  # shown above; here only the time matters
    ratio = seconds(lambda: vmap(first_and_last)(batch)) / seconds(
        lambda: vmap(first_and_last_indexed)(batch))
print(f"{len(batch)} examples, torch.take (fallback) / indexing (batching rule): "
      f"{ratio:.0f}x (measured; claim: > 5)")
# --8<-- [end:cost]

# --8<-- [start:custom_op]
from torch.library import custom_op, register_vmap


@custom_op("func_demo::clip_norm", mutates_args=())
def clip_norm(v: torch.Tensor) -> torch.Tensor:
    return v / v.norm().clamp(min=1.0)


print("before:", batching_kernel("func_demo::clip_norm"))


@register_vmap("func_demo::clip_norm")
def clip_norm_vmap(info, in_dims, v):
    print(f"  batching rule: batch size {info.batch_size}, in_dims {in_dims}, "
          f"v {tuple(v.shape)}")
    v = v.movedim(in_dims[0], 0)  # the batch in front, whatever dim it came in
    return v / v.norm(dim=1, keepdim=True).clamp(min=1.0), 0  # result, its batch dim


print("after register_vmap:", batching_kernel("func_demo::clip_norm"))
vs = torch.tensor([[3.0, 4.0], [0.3, 0.4], [6.0, 8.0]])
batched = vmap(clip_norm)(vs)
looped = torch.stack([clip_norm(v) for v in vs])
print("vmap:", [[round(e, 4) for e in row] for row in batched.tolist()],
      "| same as a loop:", torch.allclose(batched, looped))
print("in_dims=1:", torch.allclose(vmap(clip_norm, in_dims=1)(vs.T), batched))
# --8<-- [end:custom_op]
