"""schedule(wait, warmup, active, repeat), on_trace_ready and prof.step(): which steps are recorded."""
# ruff: noqa: E402, I001  (each region is a block of the page; its imports open it)
from step import (  # the page's first block
    ProfilerActivity,
    profile,
    record_function,
    schedule,
    torch,
    train_step,
)

# --8<-- [start:actions]
plan = schedule(wait=1, warmup=1, active=2, repeat=2)
print("step:        ", " ".join(f"{i:>2}" for i in range(10)))
short = {"NONE": "-", "WARMUP": "W", "RECORD": "R", "RECORD_AND_SAVE": "RS"}
print("action:      ", " ".join(f"{short[plan(i).name]:>2}" for i in range(10)))
recording = []  # one cycle of the same plan: are the operator callbacks registered in each step?
with profile(activities=[ProfilerActivity.CPU], schedule=schedule(wait=1, warmup=1, active=2, repeat=1)) as prof:
    for _ in range(6):
        recording.append("on" if torch.autograd._profiler_enabled() else "-")
        train_step()
        prof.step()
print("ops recorded:", " ".join(f"{r:>2}" for r in recording))
schedule(wait=1, warmup=0, active=2)  # a plan without warm-up steps
# --8<-- [end:actions]

# --8<-- [start:cycle]
def recorded(prof):
    """The loop iterations whose ops are in this trace (each is labelled 'iter N')."""
    return sorted(int(e.name.split()[1]) for e in prof.events() if e.name.startswith("iter "))


def on_ready(prof):
    print(f"  on_trace_ready at prof.step_num={prof.step_num}: iterations {recorded(prof)},",
          "step ranges", sorted({e.trace_name for e in prof.events() if e.name == "ProfilerStep*"}))


def run(iterations, **plan):
    print(f"{iterations} iterations, schedule({', '.join(f'{k}={v}' for k, v in plan.items())}):")
    with profile(activities=[ProfilerActivity.CPU], schedule=schedule(**plan), on_trace_ready=on_ready) as prof:
        for i in range(iterations):
            with record_function(f"iter {i}"):
                train_step()
            prof.step()  # ends step i, starts step i + 1
    print(f"  left the with block at prof.step_num={prof.step_num}")


run(10, wait=1, warmup=1, active=2, repeat=2)
# --8<-- [end:cycle]

# --8<-- [start:incomplete]
run(7, wait=1, warmup=1, active=2, repeat=2)   # the with block ends inside the second active phase
run(6, wait=1, warmup=1, active=2, repeat=2)   # ... just after the second warmup
run(5, wait=1, warmup=1, active=2, repeat=2)   # ... inside the second warmup
# --8<-- [end:incomplete]

# --8<-- [start:no_step]
for wait in (1, 0):
    fired = []
    with profile(activities=[ProfilerActivity.CPU], schedule=schedule(wait=wait, warmup=1, active=2),
                 on_trace_ready=fired.append) as prof:
        for _ in range(6):
            train_step()         # no prof.step(): the profiler stays at step 0
            recording = torch.autograd._profiler_enabled()
    print(f"wait={wait}: step 0 is {prof.schedule(0).name}; prof.step_num: {prof.step_num},",
          f"ops recorded in the loop: {recording}, on_trace_ready calls: {len(fired)}")
    try:
        print("  events:", len(prof.events()))
    except AssertionError as error:
        print("  AssertionError:", error)
# --8<-- [end:no_step]
