"""Measuring torch.compile honestly: warm-up, inference mode, a real timer, no raw numbers."""
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
import time

from torch._inductor.utils import run_and_get_code

torch._dynamo.reset()
compiled_model = torch.compile(model)  # Inductor
with torch.inference_mode():
    start = time.perf_counter()
    first, (source,) = run_and_get_code(compiled_model, batch)  # traces, compiles, runs
    first_call = time.perf_counter() - start
    start = time.perf_counter()
    for _ in range(20):
        compiled_model(batch)  # guards pass: cached code only
    steady_call = (time.perf_counter() - start) / 20
    print("compiled output matches eager:", torch.allclose(first, model(batch), atol=1e-5))
print("first call costs over 100 steady-state calls:", first_call > 100 * steady_call)
print("kernel calls in the generated wrapper:")
for line in source.splitlines():
    if line.strip().startswith(("extern_kernels.", "cpp_fused_")) and "(" in line and "=" not in line.split("(")[0]:
        print("   ", line.strip())
# --8<-- [end:warmup]

# --8<-- [start:timer]
from torch.utils import benchmark

measurements = []
with torch.inference_mode():
    for name, fn in (("eager", model), ("compiled", compiled_model)):
        timer = benchmark.Timer(
            stmt="fn(batch)",
            globals={"fn": fn, "batch": batch},
            num_threads=1,
            label="MLP 256-512-256, batch 32",
            sub_label=name,
        )
        measurements.append(timer.blocked_autorange(min_run_time=0.2))
for m in measurements:
    print(f"{m.task_spec.sub_label:8} stmt={m.task_spec.stmt!r} num_threads={m.task_spec.num_threads} "
          f"has a median: {m.median > 0}")
# benchmark.Compare(measurements).print() shows the medians; they are not recorded here
# --8<-- [end:timer]
