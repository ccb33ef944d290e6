"""Measuring torch.compile honestly: warm-up, inference mode, a real timer, ratios checked by claims."""
# ruff: noqa: E402  (each region is a block of the page; its imports open it)
import torch
import torch._dynamo

torch.manual_seed(0)
torch.set_num_threads(1)

# --8<-- [start:model]
class MLP(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = torch.nn.Linear(256, 512)
        self.fc2 = torch.nn.Linear(512, 256)
        self.drop = torch.nn.Dropout(0.1)

    def forward(self, x):
        return self.drop(self.fc2(torch.relu(self.fc1(x))))


torch.manual_seed(0)
model = MLP()
batch = torch.randn(32, 256)
print("fresh module is in training mode:", model.training)
print("two eager calls agree in training mode:", torch.equal(model(batch), model(batch)))
model.eval()
with torch.inference_mode():
    print("two eager calls agree after eval():", torch.equal(model(batch), model(batch)))
# --8<-- [end:model]

# --8<-- [start:warmup]
import re
import statistics
import time

from torch._inductor.utils import run_and_get_code

torch._dynamo.reset()
compiled_model = torch.compile(model)  # Inductor
with torch.inference_mode():
    start = time.perf_counter()
    first, (source,) = run_and_get_code(compiled_model, batch)  # traces, compiles, runs
    first_call = time.perf_counter() - start
    # Times are wall-clock: a process scheduled in during 20 calls of microseconds lengthens
    # their window many times over and sinks the ratio. The median of five windows is steady.
    windows = []
    for _ in range(5):
        start = time.perf_counter()
        for _ in range(20):
            compiled_model(batch)  # guards pass: cached code only
        windows.append((time.perf_counter() - start) / 20)
    steady_call = statistics.median(windows)
    print("compiled output matches eager:", torch.allclose(first, model(batch), atol=1e-5))
print(f"first call / steady-state call: {first_call / steady_call:.0f}x (measured; claim: > 100)")
print("kernel calls in the generated wrapper, and the buffers it reuses:")
for line in source.splitlines():
    call = line.strip().startswith(("extern_kernels.", "cpp_fused_")) and "=" not in line.split("(")[0]
    if call or "# reuse" in line:
        print("   ", line.strip())
# --8<-- [end:warmup]

# --8<-- [start:timer]
from torch.utils import benchmark


def median_seconds(eager, compiled, *args, repeats=7):
    """Median times of eager(*args) and compiled(*args), in CPU seconds of this thread, measured
    in alternation: whatever else loads the machine meanwhile hits both alike."""
    timers = [benchmark.Timer(stmt="fn(*args)", globals={"fn": fn, "args": args}, num_threads=1,
                              timer=time.thread_time)  # CPU time: blind to other processes on the machine
              for fn in (eager, compiled)]
    times = ([], [])
    with torch.inference_mode():
        for _ in range(repeats):
            for timer, measured in zip(timers, times, strict=True):
                measured.append(timer.blocked_autorange(min_run_time=0.05).median)
    return [sorted(measured)[repeats // 2] for measured in times]


def verdict(label, eager_seconds, compiled_seconds, claim):
    """The ratio of the medians, eager over compiled, printed as a measurement with the claim it must hold."""
    print(f"{label}: {eager_seconds / compiled_seconds:.2f}x (measured; claim: {claim})")


verdict("MLP 256-512-256, batch 32, eager / compiled", *median_seconds(model, compiled_model, batch),
        "between 0.5 and 2")
# --8<-- [end:timer]

# --8<-- [start:chain]
def pointwise_chain(x):
    y = x * 2.0 + 1.0
    y = torch.relu(y) - x
    y = y * y + 0.5
    return y.sum(dim=-1)  # six elementwise ops and a reduction


wide = torch.randn(64, 4096)
compiled_chain = torch.compile(pointwise_chain)
with torch.inference_mode():
    _, (chain_source,) = run_and_get_code(compiled_chain, wide)  # the warm-up call
print("generated kernels:", re.findall(r"^(cpp_fused\w+) = async_compile", chain_source, re.M))
verdict("pointwise chain, 64 x 4096, eager / compiled",
        *median_seconds(pointwise_chain, compiled_chain, wide), "> 1.5")
# --8<-- [end:chain]
