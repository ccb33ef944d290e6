"""Placements: Shard, Replicate and Partial; which rank holds which elements."""

from snippets.distributed.ranks import dist, run_ranks, torch  # noqa: F401

# isort: split

# --8<-- [start:placements]
from torch.distributed.device_mesh import init_device_mesh
from torch.distributed.tensor import DTensor, Partial, Replicate, Shard
from torch.distributed.tensor import distribute_tensor


def placements(rank, world_size):
    mesh = init_device_mesh("cpu", (world_size,))
    full = torch.arange(8.0).reshape(4, 2)  # the same on every rank
    lines = []
    for placement in (Shard(0), Shard(1), Replicate()):
        d = distribute_tensor(full, mesh, [placement])
        local = d.to_local().tolist()
        lines.append(f"{placement!r:13} global {tuple(d.shape)} local {local}")
    return lines


for rank, lines in enumerate(run_ranks(placements)):
    print(f"rank {rank}:", *lines, sep="\n  ")
# --8<-- [end:placements]


# --8<-- [start:uneven]
def uneven(rank, world_size):
    mesh = init_device_mesh("cpu", (world_size,))
    shapes = []
    for rows in (5, 3, 1):
        d = distribute_tensor(torch.ones(rows, 2), mesh, [Shard(0)])
        shapes.append(f"({rows}, 2) -> local {tuple(d.to_local().shape)}")
    return ", ".join(shapes)


for rank, line in enumerate(run_ranks(uneven, world_size=4)):
    print(f"rank {rank}: {line}")
print("torch.chunk(5 rows, 4):", [len(c) for c in torch.ones(5, 2).chunk(4)])
# --8<-- [end:uneven]


# --8<-- [start:partial]
def partial(rank, world_size):
    mesh = init_device_mesh("cpu", (world_size,))
    mine = torch.tensor([1.0, 2.0]) * 10**rank  # rank 0: [1, 2], rank 1: [10, 20]
    lines = []
    for reduce_op in ("sum", "avg", "max"):
        d = DTensor.from_local(mine, mesh, [Partial(reduce_op)])  # no communication
        local, full = d.to_local().tolist(), d.full_tensor().tolist()
        lines.append(f"{d.placements[0]!r:17} local {local} full {full}")
    return lines


for rank, lines in enumerate(run_ranks(partial)):
    print(f"rank {rank}:", *lines, sep="\n  ")
# --8<-- [end:partial]


# --8<-- [start:shards_2d]
ROWS, COLS = 4, 4
LAYOUTS = {
    "[Shard(0), Shard(1)]": [Shard(0), Shard(1)],
    "[Shard(0), Replicate()]": [Shard(0), Replicate()],
    "[Replicate(), Shard(0)]": [Replicate(), Shard(0)],
    "[Shard(0), Shard(0)]": [Shard(0), Shard(0)],
}


def held(rank, world_size):
    """For each layout, the (row, col) of every element this rank holds."""
    mesh = init_device_mesh("cpu", (2, 2), mesh_dim_names=("dp", "tp"))
    full = torch.arange(ROWS * COLS).reshape(ROWS, COLS)  # a value names its element
    out = {}
    for name, layout in LAYOUTS.items():
        local = distribute_tensor(full, mesh, layout).to_local()
        out[name] = sorted(divmod(int(v), COLS) for v in local.flatten())
    return out


def span(values):
    return f"{min(values)}-{max(values)}" if len(values) > 1 else f"{values[0]}"


holders = run_ranks(held, world_size=4)  # [rank][layout]: the elements it holds
for name in LAYOUTS:
    print(f"{name} on mesh [[0, 1], [2, 3]] (dp, tp):")
    for rank, by_layout in enumerate(holders):
        rows = sorted({row for row, _ in by_layout[name]})
        cols = sorted({col for _, col in by_layout[name]})
        where = f"dp={rank // 2}, tp={rank % 2}"
        print(f"  rank {rank} ({where}): rows {span(rows)}, cols {span(cols)}")
# --8<-- [end:shards_2d]


# --8<-- [start:draw_shards]
import matplotlib.pyplot as plt
from matplotlib.patches import Rectangle

colours = ["#0072B2", "#C05400", "#007A5A", "#A8457E"]  # one per rank, white text reads


def owners(name, row, col):
    return [rank for rank in range(4) if (row, col) in holders[rank][name]]


def cell(ax, x, y, ranks):
    """A square at (x, y), split between the colours of the ranks that hold it."""
    width = 1 / len(ranks)
    for i, rank in enumerate(ranks):
        ax.add_patch(Rectangle((x + i * width, y), width, 1, facecolor=colours[rank],
                               edgecolor="white"))
        ax.text(x + (i + 0.5) * width, y + 0.5, rank, ha="center", va="center",
                color="white", fontweight="bold", fontsize=9)


widths = [2] + [4] * len(LAYOUTS)  # the mesh is 2 x 2, the tensor 4 x 4
fig, axes = plt.subplots(1, 1 + len(LAYOUTS), figsize=(10.5, 3.2),
                         gridspec_kw={"width_ratios": widths, "wspace": 0.35})
for dp in range(2):  # the mesh itself: rank dp * 2 + tp at row dp, column tp
    for tp in range(2):
        cell(axes[0], tp, dp, [dp * 2 + tp])
axes[0].set_title("the mesh", fontsize=9)
axes[0].set_xlabel("tp")
axes[0].set_ylabel("dp")
for ax, name in zip(axes[1:], LAYOUTS, strict=True):
    for row in range(ROWS):
        for col in range(COLS):
            cell(ax, col, row, owners(name, row, col))
    ax.set_title(name, fontsize=9)
    ax.set_xlabel("column")
axes[1].set_ylabel("row")
for ax in axes:
    size = 2 if ax is axes[0] else ROWS
    ax.set_xlim(0, size)
    ax.set_ylim(size, 0)  # row 0 at the top, as a tensor prints
    ax.set_aspect("equal")
    ax.set_xticks([i + 0.5 for i in range(size)], range(size))
    ax.set_yticks([i + 0.5 for i in range(size)], range(size))
    ax.tick_params(length=0)
    ax.spines[:].set_visible(False)
fig.savefig("dtensor-shards.svg")
print("the ranks that hold each element, row by row (rows split by |):")
for name in LAYOUTS:
    grid = [[",".join(map(str, owners(name, r, c))) for c in range(COLS)]
            for r in range(ROWS)]
    print(f"{name:24}", " | ".join(" ".join(f"{o:>3}" for o in row) for row in grid))
# --8<-- [end:draw_shards]
