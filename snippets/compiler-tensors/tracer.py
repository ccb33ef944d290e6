"""make_fx's tracer: the proxy mode stacked with the fake and functional modes."""
import torch

torch.manual_seed(0)
torch.set_num_threads(1)

# --8<-- [start:mode_stack]
import contextlib

from torch._subclasses.fake_tensor import FakeTensorMode
from torch._subclasses.functional_tensor import (FunctionalTensorMode,
                                                 dispatch_functionalize)
from torch.fx.experimental.proxy_tensor import ProxyTorchDispatchMode, make_fx
from torch.utils._python_dispatch import _get_current_dispatch_mode_stack


@contextlib.contextmanager
def logged(*mode_classes):
    """Print each ATen call that reaches these modes' __torch_dispatch__, by depth."""
    depth = [0]
    originals = {cls: cls.__torch_dispatch__ for cls in mode_classes}

    def wrap(cls, original):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            if func.namespace == "aten":
                tensors = ", ".join(type(a).__name__ for a in args
                                    if isinstance(a, torch.Tensor))
                print(f"    {'  ' * depth[0]}{cls.__name__}: {func}({tensors})")
            depth[0] += 1
            try:
                return original(self, func, types, args, kwargs)
            finally:
                depth[0] -= 1
        return __torch_dispatch__
    for cls, original in originals.items():
        cls.__torch_dispatch__ = wrap(cls, original)
    try:
        yield
    finally:
        for cls, original in originals.items():
            cls.__torch_dispatch__ = original


def add_one_in_place(x):
    y = x * 2
    modes = [type(mode).__name__ for mode in _get_current_dispatch_mode_stack()]
    print("  modes, bottom to top:", modes)
    print("  y is a", type(y).__name__)
    y.add_(1)
    return y


with logged(FunctionalTensorMode, ProxyTorchDispatchMode, FakeTensorMode):
    print("make_fx(f, tracing_mode='fake'):")
    plain = make_fx(add_one_in_place, tracing_mode="fake")(torch.ones(3))
    print("make_fx(dispatch_functionalize(f), tracing_mode='fake'):")
    functional = make_fx(dispatch_functionalize(add_one_in_place), tracing_mode="fake")(
        torch.ones(3))
print("--- the graph without functionalization")
print(plain.code.strip())
print("--- with it; each node keeps the fake tensor it produced")
for node in functional.graph.nodes:
    if node.op == "call_function":
        print(f"{node.name} = {node.target}(...)  meta['val']: {node.meta['val']!r}")
# --8<-- [end:mode_stack]

# --8<-- [start:func_functionalize]
def add_one_in_place_and_look(x):
    y = x * 2
    modes = [type(mode).__name__ for mode in _get_current_dispatch_mode_stack()]
    print("  modes, bottom to top:", modes)
    print("  y is a", type(y).__name__,
          "| a C++ functional wrapper:", torch._is_functional_tensor(y))
    y.add_(1)
    return y


with logged(FunctionalTensorMode, ProxyTorchDispatchMode, FakeTensorMode):
    print("make_fx(torch.func.functionalize(f), tracing_mode='fake'):")
    functional_f = torch.func.functionalize(add_one_in_place_and_look)
    gm = make_fx(functional_f, tracing_mode="fake")(torch.ones(3))
print(gm.code.strip())
# --8<-- [end:func_functionalize]
