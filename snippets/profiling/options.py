"""record_shapes, with_stack, profile_memory: what each adds to an event, and what each costs."""
# ruff: noqa: E402, I001  (each region is a block of the page; its imports open it)
from step import (  # the page's first block
    Counter,
    ProfilerActivity,
    opt,
    profile,
    train_step,
)


# --8<-- [start:adds]
def profile_step(**options):
    opt.zero_grad(set_to_none=True)  # free the last step's gradients before profiling (see Memory)
    with profile(activities=[ProfilerActivity.CPU], **options) as prof:
        train_step()
    return prof, next(e for e in prof.events() if e.name == "aten::addmm")


def kind(event):
    if event.is_python_function:
        return "python function"
    return "[memory]" if event.name == "[memory]" else "operator or range"


for options in ({}, {"record_shapes": True}, {"profile_memory": True}, {"with_stack": True}):
    prof, addmm = profile_step(**options)
    kinds = Counter(kind(e) for e in prof.events())
    if "with_stack" in options:  # how many depends on the Python and torch releases
        kinds["python function"] = "more than operators" if kinds["python function"] > 112 else "fewer"
    print(f"{options or 'defaults'}:")
    print("  addmm: input_shapes", addmm.input_shapes, " cpu_memory_usage", addmm.cpu_memory_usage,
          " stack frames", len(addmm.stack))
    print("  events by kind:", dict(sorted(kinds.items())))
# --8<-- [end:adds]

# --8<-- [start:stack]
from torch._C._profiler import _ExperimentalConfig

prof, addmm = profile_step(with_stack=True, experimental_config=_ExperimentalConfig(verbose=True))
print("with verbose=True, addmm's stack, innermost first:")
for frame in addmm.stack:
    if frame.startswith(("torch/", "<built-in", "nn.Module")):
        print("  ", frame)
    else:  # this page's own code: its file name depends on where it runs (a script, a notebook)
        print("   <this code>:", frame.rsplit(": ", 1)[-1])
    if frame.endswith("<module>"):
        break
# --8<-- [end:stack]

# --8<-- [start:cost]
import statistics
import time


def step_seconds(options, steps=20):
    """CPU seconds of this thread per training step, under a profiler with these options
    (None: no profiler)."""
    opt.zero_grad(set_to_none=True)
    session = profile(activities=[ProfilerActivity.CPU], **options) if options is not None else None
    if session is not None:
        session.start()
    start = time.thread_time()
    for _ in range(steps):
        train_step()
    seconds = (time.thread_time() - start) / steps
    if session is not None:
        session.stop()
    return seconds


variants = {"no profiler": None, "profiler": {}, "record_shapes": {"record_shapes": True},
            "profile_memory": {"profile_memory": True}, "with_stack": {"with_stack": True}}
times = {name: [] for name in variants}
for _ in range(7):  # interleaved repeats, then the median of each
    for name, options in variants.items():
        times[name].append(step_seconds(options))
off = statistics.median(times["no profiler"])
for name, claim in [("profiler", "between 0.9 and 10"), ("record_shapes", "between 0.9 and 10"),
                    ("profile_memory", "between 0.9 and 10"), ("with_stack", "> 1.2")]:
    ratio = statistics.median(times[name]) / off
    print(f"step time, {name} / no profiler: {ratio:.2f}x (measured; claim: {claim})")
# --8<-- [end:cost]
