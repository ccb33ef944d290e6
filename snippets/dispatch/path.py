"""From torch.add to a kernel: the Python binding, the operator handle, the key set."""
# --8<-- [start:setup]
import torch

torch.manual_seed(0)
torch.set_printoptions(precision=4)
# --8<-- [end:setup]

# --8<-- [start:binding]
# torch.add is not Python code: it is a C function generated from a template.
print("torch.add is the C binding:", torch.add is torch._C._VariableFunctions.add)
print("type:", type(torch.add).__name__)

# The same operator, reached through the dispatcher's registry instead.
packet = torch.ops.aten.add
print("overload packet:", type(packet).__name__, "with", len(packet.overloads()), "overloads")
op = torch.ops.aten.add.Tensor
print("overload:", type(op).__name__)
print("schema:", op._schema)

a, b = torch.ones(3), torch.arange(3.0)
print("same result:", torch.equal(torch.add(a, b, alpha=2), op(a, b, alpha=2)))
# --8<-- [end:binding]

# --8<-- [start:keyset]
# The dispatcher computes one key set per call: the union of the arguments'
# keys, plus the thread-local "included" set, minus the "excluded" set.
a = torch.ones(3)
print("tensor keys:  ", torch._C._dispatch_keys(a))
print("TLS included: ", torch._C._dispatch_tls_local_include_set())
print("TLS excluded: ", torch._C._dispatch_tls_local_exclude_set())
# --8<-- [end:keyset]

# --8<-- [start:draw_path]
import re

import matplotlib.pyplot as plt

a = torch.ones(3)
included = torch._C._dispatch_tls_local_include_set()
excluded = torch._C._dispatch_tls_local_exclude_set()
table = dict(re.findall(r"^(\w+): (fallthrough )?registered", torch._C._dispatch_dump_table("aten::add.Tensor"),
                        re.MULTILINE))
walk, keys = [], torch._C._dispatch_keys(a) | included   # every key the call could reach
while (key := keys.highestPriorityTypeId()).name != "Undefined":  # highest priority first
    keys = keys.remove(key)
    if excluded.has(key):
        kind = "excluded by the thread: skipped"
    elif key.name not in table:
        kind = "no kernel"
    else:
        kind = "fallthrough: on to the next key" if table[key.name] else "kernel: runs"
    walk.append((key.name, kind))
    print(f"{key.name:<16} {kind}")
print(f"{len(walk)} keys reached, {sum(kind.startswith('kernel') for _, kind in walk)} of them run a kernel")

fig, ax = plt.subplots(figsize=(6.4, 3.6))
for y, (name, kind) in enumerate(walk):
    skipped = not kind.startswith("kernel")
    ax.text(0, -y, name, ha="center", va="center", fontsize=10, color="#595959" if skipped else "black",
            bbox={"boxstyle": "round,pad=0.5", "facecolor": "white" if skipped else "#fbe3d6",
                  "edgecolor": "#595959" if skipped else "#C05400",
                  "linestyle": "--" if skipped else "-"})
    ax.text(1.5, -y, kind, ha="left", va="center")
    if y:
        ax.annotate("", xy=(0, -y + 0.25), xytext=(0, -y + 0.75),
                    arrowprops={"arrowstyle": "-|>", "color": "#595959"})
autograd = next(y for y, (name, _) in enumerate(walk) if name.startswith("Autograd"))
ax.text(-1.5, -autograd - 0.5, "records the graph if an input\nrequires grad, then redispatches\nbelow Autograd", ha="right", va="center",
        fontsize=9)
ax.set_xlim(-4, 5)
ax.set_ylim(-len(walk) + 0.5, 0.5)
ax.axis("off")
ax.set_title("torch.add(a, b) on CPU tensors: the keys of the call, highest priority first")
fig.savefig("dispatch-add.svg")
# --8<-- [end:draw_path]
