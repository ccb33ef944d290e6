"""torchrun: what it sets for each worker, and how it restarts a failed worker group."""

# --8<-- [start:torchrun_env]
import json
import os
import re
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

WORKER = """
import json, os
import torch
import torch.distributed as dist

dist.init_process_group("gloo")  # env://: everything it needs is in the environment
t = torch.tensor([dist.get_rank() + 1.0])
dist.all_reduce(t)
names = ["RANK", "LOCAL_RANK", "WORLD_SIZE", "LOCAL_WORLD_SIZE", "GROUP_RANK",
         "TORCHELASTIC_RESTART_COUNT", "TORCHELASTIC_MAX_RESTARTS",
         "TORCHELASTIC_USE_AGENT_STORE", "OMP_NUM_THREADS",
         "TORCH_NCCL_ASYNC_ERROR_HANDLING"]
seen = {name: os.environ[name] for name in names}
for name in ("MASTER_ADDR", "MASTER_PORT", "TORCHELASTIC_RUN_ID"):  # differ per run
    seen[name] = "set" if name in os.environ else "unset"
seen["all_reduce of rank + 1"] = t.item()
with open(f"rank{dist.get_rank()}.json", "w") as f:
    json.dump(seen, f)
dist.destroy_process_group()
"""


def torchrun(script, *options, env=None):
    """torchrun --standalone --nproc-per-node=2 [options] script, in a new directory."""
    tmp = tempfile.TemporaryDirectory()
    with open(os.path.join(tmp.name, "train.py"), "w") as f:
        f.write(textwrap.dedent(script))
    mine = ("OMP_NUM_THREADS", "TORCH_NCCL_ASYNC_ERROR_HANDLING")  # torchrun sets these
    clean = {k: v for k, v in os.environ.items() if k not in mine}
    loopback = "lo0" if sys.platform == "darwin" else "lo"  # gloo on the loopback
    done = subprocess.run(
        [sys.executable, "-m", "torch.distributed.run",  # the module behind `torchrun`
         "--standalone", "--nproc-per-node=2", *options, "train.py"],
        cwd=tmp.name, env={**clean, "GLOO_SOCKET_IFNAME": loopback, **(env or {})},
        capture_output=True, text=True, timeout=240,
    )
    return done, tmp


done, tmp = torchrun(WORKER)
print("torchrun exit code:", done.returncode)
seen = [json.loads(Path(tmp.name, f"rank{r}.json").read_text()) for r in range(2)]
print(f"{'':32} {'rank 0':>8} {'rank 1':>8}")
for name in seen[0]:
    print(f"{name:32} {seen[0][name]!s:>8} {seen[1][name]!s:>8}")
tmp.cleanup()
# --8<-- [end:torchrun_env]

# --8<-- [start:torchrun_restart]
RESTARTING = """
import os
import torch
import torch.distributed as dist

attempt = int(os.environ["TORCHELASTIC_RESTART_COUNT"])
store, rank, world_size = next(dist.rendezvous("env://"))  # the workers' shared store
log = open(f"attempt{attempt}-rank{rank}.txt", "w", buffering=1)
log.write("started\\n")
if attempt == 0 and rank == 0:
    store.set("marker", "written in attempt 0")
elif attempt == 0:
    store.wait(["marker"])  # fail only once rank 0 has written it
    log.write("fails\\n")
    raise RuntimeError("rank 1 fails in attempt 0")
else:
    log.write(f"attempt 0's key still in the store: {store.check(['marker'])}\\n")
# a prefix per attempt: init_process_group's own keys have the same names every time
pg_store = dist.PrefixStore(f"attempt{attempt}", store)
dist.init_process_group("gloo", store=pg_store, rank=rank, world_size=world_size)
t = torch.tensor([rank + 1.0])
dist.all_reduce(t)
log.write(f"all_reduce of rank + 1: {t.item()}\\n")
dist.destroy_process_group()
"""

for restarts in (1, 0):
    done, tmp = torchrun(RESTARTING, f"--max-restarts={restarts}")
    print(f"--max-restarts={restarts}: torchrun exit code {done.returncode}")
    for name in sorted(os.listdir(tmp.name)):
        if name.startswith("attempt"):
            attempt, rank = re.findall(r"\d+", name)
            for line in Path(tmp.name, name).read_text().splitlines():
                print(f"  attempt {attempt}, rank {rank}: {line}")
    tmp.cleanup()
print("torchrun's report, shortened:")
for line in done.stderr[done.stderr.index("Root Cause"):].splitlines():
    if re.match(r"\s*(Root Cause|rank|exitcode)\b", line):
        print("  " + re.sub(r"\s+\(pid: \d+\)", "", line.strip()))  # pids differ
# --8<-- [end:torchrun_restart]
