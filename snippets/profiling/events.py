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
