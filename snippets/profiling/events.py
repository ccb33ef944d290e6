"""What a profiler event is: one RecordFunction range, collected by Kineto."""
# ruff: noqa: E402, I001  (each region is a block of the page; its imports open it)
from step import (  # the page's first block
    Counter,
    ProfilerActivity,
    profile,
    torch,
    train_step,
)

# --8<-- [start:events]
with profile(activities=[ProfilerActivity.CPU]) as prof:
    train_step()


def subtree(event):
    """The event and every event nested inside it."""
    yield event
    for child in event.cpu_children:
        yield from subtree(child)


events = prof.events()  # an EventList of FunctionEvent, one per recorded range
roots = [e for e in events if e.cpu_parent is None]
print(f"{len(events)} events, {len(roots)} of them outermost; the outermost, in start order:")
for root in roots:
    print(f"  {sum(1 for _ in subtree(root)):>3}  {root.name}")
# --8<-- [end:events]

# --8<-- [start:event]
addmm = next(e for e in events if e.name == "aten::addmm")
print("name:", addmm.name)
print("parent:", addmm.cpu_parent.name, "(itself outermost:", addmm.cpu_parent.cpu_parent is None, end=")\n")
print("children:", [c.name for c in addmm.cpu_children])
print("scope:", addmm.scope, " user annotation:", addmm.is_user_annotation)
print("input_shapes:", addmm.input_shapes, " stack:", addmm.stack)
print("times (us):", type(addmm.time_range).__name__, "with start, end, elapsed_us();",
      "self_cpu_time_total <= cpu_time_total:", addmm.self_cpu_time_total <= addmm.cpu_time_total)
scopes = Counter(e.scope for e in events)
backward_node = next(e for e in events if e.name == "AddmmBackward0")
engine_range = backward_node.cpu_parent  # autograd::engine::evaluate_function: AddmmBackward0
print("scopes in the step:", dict(sorted(scopes.items())), " AddmmBackward0 has scope", backward_node.scope,
      "and its parent, the engine's evaluate_function range,", engine_range.scope)
forward_seq = {e.sequence_nr for e in events if e.name == "aten::addmm"}
print("each AddmmBackward0 carries the sequence_nr of a forward aten::addmm:",
      all(e.sequence_nr in forward_seq for e in events if e.name == "AddmmBackward0"))
# --8<-- [end:event]

# --8<-- [start:backend]
print("Kineto available:", torch.autograd.kineto_available())
print("prof.profiler:", type(prof.profiler).__module__ + "." + type(prof.profiler).__qualname__)
print("its results:", type(prof.profiler.kineto_results).__qualname__)
print("activities this build supports:", sorted(a.name for a in torch.profiler.supported_activities()))
print("profiler enabled outside a profile:", torch.autograd._profiler_enabled())
with profile(activities=[ProfilerActivity.CPU]):
    print("... inside one:", torch.autograd._profiler_enabled())
# --8<-- [end:backend]

# --8<-- [start:timeline]
import matplotlib.pyplot as plt


def phase(root):
    """The part of the step an outermost event belongs to."""
    if root.name.startswith("Optimizer."):
        return "optimizer"
    if root.name.startswith("autograd::engine::") or root.name == "aten::ones_like":
        return "backward"
    return "forward" if root.name != "aten::detach" else "return"


def short(name):
    return name.replace("autograd::engine::evaluate_function: ", "").replace("torch::autograd::", "") \
        .replace("aten::", "").replace("Optimizer.", "").split("#")[0]


def depth_of(event):
    return 0 if event.cpu_parent is None else 1 + depth_of(event.cpu_parent)


# pos: an event's position in start order, width: the number of events in its subtree, itself
# included. A child starts right after its parent's start; siblings follow each other.
bars = []  # (pos, width, depth, name, phase)


def lay_out(event, pos, depth, part):
    width = sum(1 for _ in subtree(event))
    bars.append((pos, width, depth, event.name, part))
    child_pos = pos + 1
    for child in event.cpu_children:
        child_pos += lay_out(child, child_pos, depth + 1, part)
    return width


end_pos = 0
for root in roots:
    end_pos += lay_out(root, end_pos, 0, phase(root))
colour = {"optimizer": "#009E73", "forward": "#0072B2", "backward": "#D55E00", "return": "#595959"}
segments = []  # [phase, first, end, outermost names]: consecutive outermost events of one phase
for pos, width, depth, name, part in bars:
    if depth == 0:
        if segments and segments[-1][0] == part:
            segments[-1][2] = pos + width
            segments[-1][3].append(short(name))
        else:
            segments.append([part, pos, pos + width, [short(name)]])
max_depth = max(depth for _, _, depth, _, _ in bars)
print(f"{len(bars)} bars over {end_pos} event positions, depths 0 to {max_depth}")
for part, first, end, outer in segments:
    n = end - first
    print(f"{part}: positions {first}-{end - 1}, {n} event{'s' * (n != 1)};",
          f"outermost: {', '.join(outer)}" if len(outer) <= 4 else f"{len(outer)} outermost")
deepest = [(name, part) for _, _, depth, name, part in bars if depth == max_depth]
print(f"at depth {max_depth}: {len(deepest)} events, phases {sorted({part for _, part in deepest})}")
chain = [next(e for e in events if depth_of(e) == max_depth)]
while chain[-1].cpu_parent is not None:
    chain.append(chain[-1].cpu_parent)
print("the first:", " > ".join(e.name for e in reversed(chain)))

fig, ax = plt.subplots(figsize=(9.6, 3.4))
for pos, width, depth, name, part in bars:
    ax.barh(depth, width, left=pos, height=0.9, color=colour[part],
            edgecolor="white", linewidth=0.6)
    label = short(name)
    if width >= max(4, len(label) * 0.75):
        ax.text(pos + width / 2, depth, label, ha="center", va="center", fontsize=7, color="white")
for part, first, end, _ in segments:
    if part != "return":
        ax.annotate("", xy=(first, -0.8), xytext=(end, -0.8),
                    arrowprops={"arrowstyle": "|-|, widthA=0.3, widthB=0.3", "color": colour[part],
                                "shrinkA": 0, "shrinkB": 0})
        label = part if end - first >= 8 else {"optimizer": "opt."}.get(part, part)
        ax.text((first + end) / 2, -1.05, label, ha="center", va="bottom", color=colour[part])
ax.set_ylim(max_depth + 0.6, -1.6)
ax.set_xlim(0, end_pos)
ax.set_yticks(range(max_depth + 1), [f"depth {d}" for d in range(max_depth + 1)])
ax.set_xlabel("event position in start order (a bar's width is its number of events, not its duration)")
ax.spines[["top", "right", "left"]].set_visible(False)
ax.tick_params(axis="y", length=0)
fig.savefig("step-timeline.svg")
# --8<-- [end:timeline]
