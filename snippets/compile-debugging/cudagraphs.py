"""CUDA graphs under mode="reduce-overhead" (GPU-only block)."""
import torch

if not torch.cuda.is_available():  # the region below is a GPU-only block
    raise SystemExit(0)

# --8<-- [start:cudagraphs]
import torch._dynamo
from torch._dynamo.utils import counters

torch._dynamo.reset()
counters.clear()
torch.manual_seed(0)
mlp = torch.nn.Sequential(torch.nn.Linear(64, 64), torch.nn.ReLU(), torch.nn.Linear(64, 64)).cuda()
inp = torch.randn(8, 64, device="cuda")
compiled_mlp = torch.compile(mlp, mode="reduce-overhead")
with torch.no_grad():
    outputs = [compiled_mlp(inp) for _ in range(3)]  # warm-up, record, replay
    print("matches eager:", torch.allclose(outputs[-1], mlp(inp), atol=1e-4))
print("cudagraph skips:", counters["inductor"]["cudagraph_skips"])
try:
    print(outputs[0].sum())  # an output of an earlier replay: its memory belongs to the graph
except RuntimeError as error:
    print("RuntimeError:", str(error).splitlines()[0])
# --8<-- [end:cudagraphs]
