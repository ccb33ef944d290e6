"""record_function: ranges with your own names, in events, in key_averages and in the trace."""
# ruff: noqa: E402, I001  (each region is a block of the page; its imports open it)
from step import (  # the page's first block
    Counter,
    ProfilerActivity,
    model,
    nn,
    opt,
    profile,
    record_function,
    x,
    y,
)


# --8<-- [start:ranges]
@record_function("loss")  # also works as a decorator
def loss_fn(logits, target):
    return nn.functional.cross_entropy(logits, target)


def labelled_step():
    opt.zero_grad(set_to_none=True)
    with record_function("forward"):
        loss = loss_fn(model(x), y)
    with record_function("backward"):
        loss.backward()
    with record_function("optimizer"):
        opt.step()


with profile(activities=[ProfilerActivity.CPU]) as prof:
    for _ in range(3):
        labelled_step()


def subtree(event):
    yield event
    for child in event.cpu_children:
        yield from subtree(child)


first = {}
for e in prof.events():
    if e.is_user_annotation and e.name not in first:
        first[e.name] = e
for name, e in first.items():
    inside = Counter(d.name for d in subtree(e) if d is not e and d.cpu_parent is e)
    print(f"{name} (parent: {e.cpu_parent.name if e.cpu_parent else None}):", sum(1 for _ in subtree(e)) - 1,
          "events inside; directly:", dict(inside.most_common(3)))
# --8<-- [end:ranges]

# --8<-- [start:ranges_table]
import statistics

rows = {r.key: r for r in prof.key_averages()}
for name in first:
    r = rows[name]
    print(f"{name:<34} calls {r.count}  total >= self: {r.cpu_time_total >= r.self_cpu_time_total}")


def phase_share(profiled):
    averages = profiled.key_averages()
    by_key = {r.key: r for r in averages}
    phases = sum(by_key[name].cpu_time_total for name in ("forward", "backward", "optimizer"))
    return phases / averages.self_cpu_time_total


# Times here are wall-clock: another process scheduled in during zero_grad (outside the three
# ranges) adds its milliseconds there and sinks one profile's share. The median of five is steady.
shares = [phase_share(prof)]
for _ in range(4):
    with profile(activities=[ProfilerActivity.CPU]) as again:
        for _ in range(3):
            labelled_step()
    shares.append(phase_share(again))
share = statistics.median(shares)
print(f"forward + backward + optimizer ranges / Self CPU time total: {share:.2f}",
      "(measured; claim: between 0.5 and 1.01)")
# --8<-- [end:ranges_table]
