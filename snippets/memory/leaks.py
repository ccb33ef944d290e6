"""Leaks that do hold memory: graphs kept alive by stored losses."""
import torch
from torch import nn

# --8<-- [start:graph_census]
def graph_census(root, skip=frozenset()):
    """Walk root's autograd graph: number of Nodes, and bytes of saved tensors still held."""
    seen, stack, saved = set(), [root.grad_fn], {}
    while stack:
        node = stack.pop()
        if node is None or node in seen:
            continue
        seen.add(node)
        for name in dir(node):
            if name.startswith("_saved_"):
                try:
                    value = getattr(node, name)
                except RuntimeError:            # already freed by backward()
                    continue
                if isinstance(value, torch.Tensor):
                    storage = value.untyped_storage()
                    if storage.data_ptr() not in skip:
                        saved[storage.data_ptr()] = storage.nbytes()
        stack.extend(fn for fn, _ in node.next_functions)
    return len(seen), sum(saved.values())


torch.manual_seed(0)
model = nn.Sequential(nn.Linear(64, 256), nn.ReLU(), nn.Linear(256, 1))
param_ptrs = frozenset(p.untyped_storage().data_ptr() for p in model.parameters())
batches = [torch.randn(32, 64) for _ in range(4)]

total_loss = 0
for step, x in enumerate(batches):             # training: backward() every step
    loss = model(x).pow(2).mean()
    model.zero_grad()
    loss.backward()
    with torch.no_grad():                      # plain SGD step
        for p in model.parameters():
            p -= 0.01 * p.grad
    total_loss += loss                         # keeps this step's graph reachable
    print(f"train step {step}: (nodes, saved bytes) =", graph_census(total_loss, param_ptrs))
# --8<-- [end:graph_census]

# --8<-- [start:eval_leak]
total_loss = 0
for step, x in enumerate(batches):             # evaluation without no_grad, no backward
    loss = model(x).pow(2).mean()
    total_loss += loss
    print(f"eval step {step}: (nodes, saved bytes) =", graph_census(total_loss, param_ptrs))
# --8<-- [end:eval_leak]

# --8<-- [start:eval_fixed]
total_loss = 0.0
history = []
for x in batches:
    loss = model(x).pow(2).mean()
    total_loss += loss.item()                  # a Python float: no graph
    history.append(loss.detach())              # a tensor that shares data, no grad_fn
print("total_loss is a", type(total_loss).__name__)
print("history grad_fns:", [t.grad_fn for t in history])
with torch.no_grad():                          # or: never build the graph at all
    loss = model(batches[0]).pow(2).mean()
print("under no_grad: grad_fn =", loss.grad_fn)
# --8<-- [end:eval_fixed]
