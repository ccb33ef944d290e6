"""Sharding propagation: the rules that pick an op's output placement."""

from snippets.distributed.ranks import dist, run_ranks, torch  # noqa: F401

# isort: split

# --8<-- [start:registry]
from torch.distributed.tensor import DTensor

propagator = DTensor._op_dispatcher.sharding_propagator  # one per process
aten = torch.ops.aten
ops = [aten.mm.default, aten.add.Tensor, aten.relu.default, aten.sum.default,
       aten._softmax.default, aten.hardswish.default, aten.nonzero.default]
for op in ops:
    single_dim = propagator.op_single_dim_strategy_funcs.get(op)
    whole_mesh = propagator.op_strategy_funcs.get(op)
    one = single_dim.func.__name__ if single_dim else "-"
    whole = whole_mesh.__name__ if whole_mesh else "-"
    print(f"{str(op):22} single-dim: {one:36} whole-mesh: {whole}")
# --8<-- [end:registry]


# --8<-- [start:mm_rule]
from torch.distributed.tensor._ops._matrix_ops import gen_single_dim_einsum_strategies


def short(placement):  # the placeholder "shard this tensor dim" reads as S(dim)
    dim = getattr(placement, "dim", None)
    return f"S({dim})" if dim is not None else str(placement)


print("mm on one mesh dimension, out = lhs @ rhs (mk,kn->mn):")
for out, lhs, rhs in gen_single_dim_einsum_strategies("mk,kn->mn"):
    print(f"  {short(out):6} = {short(lhs):6} @ {short(rhs)}")
# --8<-- [end:mm_rule]


# --8<-- [start:mm_cases]
from torch.distributed.device_mesh import init_device_mesh
from torch.distributed.tensor import Replicate, Shard, distribute_tensor
from torch.distributed.tensor.debug import CommDebugMode


def comms(mode):
    return {op.__name__: n for op, n in mode.get_comm_counts().items()} or "none"


def matmuls(rank, world_size):
    mesh = init_device_mesh("cpu", (world_size,))
    torch.manual_seed(0)
    a, b = torch.randn(4, 6), torch.randn(6, 2)
    lines = []
    for pa, pb in [
        (Shard(0), Replicate()),
        (Replicate(), Shard(1)),
        (Shard(1), Shard(0)),
        (Shard(0), Shard(0)),
    ]:
        x, w = distribute_tensor(a, mesh, [pa]), distribute_tensor(b, mesh, [pb])
        with CommDebugMode() as mode:  # the matmul's collectives only
            y = x @ w
        same = torch.allclose(y.full_tensor(), a @ b)
        result = f"{str(y.placements[0]):6} comms {comms(mode)}"
        lines.append(f"{str(pa):4} @ {str(pb):4} -> {result}, a @ b: {same}")
    return lines


print(*run_ranks(matmuls)[0], sep="\n")
# --8<-- [end:mm_cases]


# --8<-- [start:other_ops]
def others(rank, world_size):
    mesh = init_device_mesh("cpu", (world_size,))
    torch.manual_seed(0)
    x = distribute_tensor(torch.randn(4, 6), mesh, [Shard(0)])
    left = distribute_tensor(torch.randn(4, 6), mesh, [Shard(1)])
    partial = left @ distribute_tensor(torch.randn(6, 2), mesh, [Shard(0)])
    cases = {
        "x * 2": lambda: x * 2,
        "x.t()": lambda: x.t(),
        "x.sum(1)": lambda: x.sum(1),
        "x.sum(0)": lambda: x.sum(0),
        "x.softmax(1)": lambda: x.softmax(1),
        "x.softmax(0)": lambda: x.softmax(0),
        "partial * 2": lambda: partial * 2,
        "partial.relu()": lambda: partial.relu(),
        "hardswish(x)": lambda: torch.nn.functional.hardswish(x),  # no rule of its own
    }
    lines = [f"x is {x.placements[0]}, partial is {partial.placements[0]}"]
    for name, fn in cases.items():
        with CommDebugMode() as mode:
            y = fn()
        lines.append(f"{name:15} -> {str(y.placements[0]):6} comms {comms(mode)}")
    try:
        x.nonzero()  # no rule in either table, and no decomposition
    except RuntimeError as e:
        lines.append(f"x.nonzero()     -> {str(e).splitlines()[-1]}")
    return lines


print(*run_ranks(others)[0], sep="\n")
# --8<-- [end:other_ops]


from torch.utils._debug_mode import DebugMode  # noqa: E402

with DebugMode():  # as on the page: its first use imports much, before ranks fork
    pass

import re  # noqa: E402


def steady(trace):  # as on the page: each collective's group name as <group>
    return re.sub(r"(_c10d_functional::.*), \w+\)  ->", r"\1, <group>)  ->", trace)


# --8<-- [start:implicit]
from torch.utils._debug_mode import DebugMode


def implicit(rank, world_size):
    mesh = init_device_mesh("cpu", (world_size,))
    torch.manual_seed(0)
    a = distribute_tensor(torch.randn(4, 6), mesh, [Shard(0)])
    b = distribute_tensor(torch.randn(4, 6), mesh, [Shard(1)])
    with DebugMode(record_torchfunction=False) as mode:
        a + b  # the two inputs disagree: one is redistributed first
    return steady(mode.debug_string())


print(run_ranks(implicit)[0])
# --8<-- [end:implicit]
