"""key_averages(): the table, self against total time, grouping by input shape and by stack."""
# ruff: noqa: E402, I001  (each region is a block of the page; its imports open it)
from step import (  # the page's first block
    ProfilerActivity,
    opt,
    profile,
    train_step,
)

# --8<-- [start:table]
import re
import time

with profile(activities=[ProfilerActivity.CPU]) as prof:
    start = time.perf_counter()
    for _ in range(4):
        train_step()
    loop_us = (time.perf_counter() - start) * 1e6  # the loop's wall time, in microseconds
averages = prof.key_averages()  # one FunctionEventAvg per event name


def masked(table, keep=("Name", "# of Calls")):
    """The table as printed, with every column but `keep` replaced by <t>: times vary by run."""
    lines = table.splitlines()
    widths = [len(dashes) for dashes in lines[0].split("  ") if dashes]
    header = lines[1]
    out = []
    for line in lines:
        cells, pos = [], 0
        for width in widths:
            cell = line[pos:pos + width]
            name = header[pos:pos + width].strip()
            if name not in keep and line.strip() and not line.startswith("-") and line is not header:
                cell = "<t>".rjust(width)
            cells.append(cell)
            pos += width + 2
        out.append("  ".join(cells).rstrip() if pos <= len(line) + 2 else line)
    return "\n".join(re.sub(r"total: \S+", "total: <t>", line) for line in out)


print(masked(averages.table(sort_by="count", row_limit=12)))
# --8<-- [end:table]

# --8<-- [start:self_total]
linear = next(e for e in prof.events() if e.name == "aten::linear")
children = sum(c.cpu_time_total for c in linear.cpu_children)
print("aten::linear's children:", [c.name for c in linear.cpu_children])
print("self == total - children's totals:", abs(linear.self_cpu_time_total - (linear.cpu_time_total - children)) < 1e-6)
import statistics

from torch.autograd.profiler_util import _format_time, _format_time_share  # how table() formats

rows = sorted(averages, key=lambda r: r.count, reverse=True)  # the order of the table above
self_sum = sum(r.self_cpu_time_total for r in rows)
lines = averages.table(sort_by="count", row_limit=-1).splitlines()  # every row, unmasked
cells = [re.split(r"\s{2,}", line.strip()) for line in lines[3:-2]]  # name, Self CPU %, Self CPU, CPU total %, ...
print("the footer 'Self CPU time total' is the sum of the Self CPU column:",
      lines[-1] == f"Self CPU time total: {_format_time(self_sum)}")
shares = [[_format_time_share(r.self_cpu_time_total, self_sum), _format_time_share(r.cpu_time_total, self_sum)]
          for r in rows]
print("each row's Self CPU % and CPU total % divide by that footer:", [[c[1], c[3]] for c in cells] == shares)


def nesting(rows):
    """The CPU total column's sum over the Self CPU column's: above 1 by the time counted in two rows."""
    return sum(r.cpu_time_total for r in rows) / sum(r.self_cpu_time_total for r in rows)


# Times here are wall-clock: another process scheduled in during an outer op's own time adds to its
# self and its total alike and sinks one profile's ratio. The median of five is steady.
ratios = [nesting(rows)]
for _ in range(4):
    with profile(activities=[ProfilerActivity.CPU]) as again:
        for _ in range(4):
            train_step()
    ratios.append(nesting(again.key_averages()))
print(f"sum of the CPU total column / Self CPU time total: {statistics.median(ratios):.2f}x (measured; claim: > 1.2)")
print(f"Self CPU time total / the loop's wall time: {self_sum / loop_us:.2f}x (measured; claim: < 1)")
# --8<-- [end:self_total]

# --8<-- [start:sort_keys]
for key in ("self_cpu_time_total", "cpu_time_total", "cpu_time", "count", "self_cpu_memory_usage"):
    averages.table(sort_by=key, row_limit=1)
    print(f"sort_by={key!r}: accepted")
for key in ("self_cpu_time", "cpu_total"):
    try:
        averages.table(sort_by=key)
    except AttributeError as error:
        print(f"sort_by={key!r}: AttributeError: {error}")
# --8<-- [end:sort_keys]

# --8<-- [start:by_shape]
opt.zero_grad(set_to_none=True)
with profile(activities=[ProfilerActivity.CPU], record_shapes=True) as prof:
    for _ in range(2):
        train_step()
for row in prof.key_averages(group_by_input_shape=True):
    if row.key in ("aten::addmm", "aten::mm"):
        print(f"{row.key:<12} x{row.count}  {row.input_shapes}")
# --8<-- [end:by_shape]

# --8<-- [start:by_stack]
from torch._C._profiler import _ExperimentalConfig

with profile(activities=[ProfilerActivity.CPU], with_stack=True,
             experimental_config=_ExperimentalConfig(verbose=True)) as prof:
    for _ in range(2):
        train_step()
for n in (2, 4):
    rows = [r for r in prof.key_averages(group_by_stack_n=n) if r.key == "aten::addmm"]
    print(f"group_by_stack_n={n}: {len(rows)} row(s) for aten::addmm")
    for row in rows:
        print(f"  x{row.count}:", " <- ".join(row.stack))
# --8<-- [end:by_stack]
