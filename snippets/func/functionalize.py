"""Functionalization as a transform: FunctionalTensorWrapper, no mutations, no views."""
# ruff: noqa: E402, I001  (each region is a block of the page; its imports open it)
from batched import ShowOps, functorch_c, torch  # the page's earlier blocks

# --8<-- [start:inside]
from torch.func import functionalize


def bump(x):
    grid = x.view(2, 2)  # a view of the input
    x.add_(1)  # a mutation of its base
    return grid * 10  # read the view after the mutation


def look_and_bump(x):
    print("  f sees: functional tensor:", torch._is_functional_tensor(x), "| level:",
          functorch_c.maybe_get_level(x), "| keys:", torch._C._dispatch_keys(x))
    return bump(x)


print("eager:", bump(torch.zeros(4)).tolist())
x = torch.zeros(4)
with ShowOps():
    out = functionalize(look_and_bump)(x)
print("functionalized:", out.tolist(), "| x afterwards:", x.tolist())
# --8<-- [end:inside]

# --8<-- [start:lazy]
def value(t):
    """What a FunctionalTensorWrapper holds now, without bringing it up to date."""
    return torch._from_functional_tensor(t).tolist()


def scale_row(x):
    row = x[0]
    print("row.add_(5):")
    row.add_(5)
    print("  x's wrapper holds", value(x), "| row's holds", value(row))
    print("x.sum():")
    total = x.sum()
    print("  x's wrapper holds", value(x))
    return total


x = torch.zeros(2, 3)
with ShowOps():
    total = functionalize(scale_row)(x)
print("result:", total.item(), "| x afterwards:", x.tolist())
# --8<-- [end:lazy]

# --8<-- [start:graphs]
from torch.fx.experimental.proxy_tensor import make_fx

print("--- remove='mutations' (the default)")
print(make_fx(functionalize(bump))(torch.zeros(4)).code.strip())
print("--- remove='mutations_and_views'")
no_views = functionalize(bump, remove="mutations_and_views")
print(make_fx(no_views)(torch.zeros(4)).code.strip())
# --8<-- [end:graphs]
