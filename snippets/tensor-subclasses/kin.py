"""FakeTensor and FunctionalTensor: the compiler's own tensor subclasses."""
from pathlib import Path

import torch

torch.manual_seed(0)
torch.set_num_threads(1)

# Run on its own, this file first runs what the page defined in earlier blocks
# (the regions `define` of int8.py and `flatten` of compile.py).
_here = Path(__file__).parent
for _file, _region in [("int8.py", "define"), ("compile.py", "flatten")]:
    _text = (_here / _file).read_text()
    _code = _text.split(f"# --8<-- [start:{_region}]\n")[1]
    _code = _code.split(f"# --8<-- [end:{_region}]")[0]
    if _region == "flatten":  # only the definitions, not the demonstration after them
        _code = _code.split("\nwt = ")[0]
    exec(_code)

# --8<-- [start:hierarchy]
from torch._subclasses.fake_tensor import FakeTensorMode
from torch._subclasses.functional_tensor import FunctionalTensor, FunctionalTensorMode
from torch.distributed.tensor import DTensor
from torch.utils._python_dispatch import is_traceable_wrapper_subclass_type

fake_mode = FakeTensorMode()
fake = fake_mode.from_tensor(torch.ones(2, 3))
with FunctionalTensorMode():
    functional = FunctionalTensor.to_functional(torch.ones(2, 3))
nested = torch.nested.nested_tensor([torch.ones(2, 3), torch.ones(4, 3)],
                                    layout=torch.jagged)
int8 = Int8WeightTensor.from_float(torch.ones(2, 3))


def storage_of(t):
    if t is None:
        return "(none made here: a DTensor needs a device mesh)"
    if t.untyped_storage().device.type == "meta":
        return "a storage on meta, with no bytes"
    try:
        t.untyped_storage().data_ptr()
    except RuntimeError:
        return "none of its own"
    return "its own bytes"


for cls, t in [(type(fake), fake), (type(functional), functional), (DTensor, None),
               (type(nested), nested), (Int8WeightTensor, int8)]:
    print(f"{cls.__name__}: bases {[c.__name__ for c in cls.__mro__[1:]]}")
    print("  own __torch_dispatch__:", "__torch_dispatch__" in vars(cls),
          "| __torch_function__ disabled:",
          cls.__torch_function__ is torch._C._disabled_torch_function_impl)
    print("  storage:", storage_of(t), "| flatten/unflatten:",
          is_traceable_wrapper_subclass_type(cls))
print("what a FunctionalTensor wraps:", type(functional.elem).__name__,
      "| a FakeTensor's device:", fake.device, "over", storage_of(fake))
# --8<-- [end:hierarchy]

# --8<-- [start:keys]
with fake_mode:
    fake_cuda = torch.empty(2, 3, device="cuda")
rows = {"plain CPU tensor": torch.ones(2, 3), "FakeTensor, cpu": fake,
        "FakeTensor, cuda": fake_cuda, "FunctionalTensor": functional,
        "  its .elem": functional.elem, "Int8WeightTensor": int8}
for name, t in rows.items():
    keys = str(torch._C._dispatch_keys(t)).removeprefix("DispatchKeySet(")[:-1]
    print(f"{name:<17} {keys}")
print("fake + 1, no mode active:", type(fake + 1).__name__)
try:
    functional + 1
except RuntimeError as e:
    print("functional + 1, no mode active:", e)
# --8<-- [end:keys]

# --8<-- [start:inside]
from torch.utils._python_dispatch import _get_current_dispatch_mode_stack


def layers_of(t):
    """The tensors inside one another, outermost first."""
    names = []
    while True:
        if isinstance(t, FunctionalTensor):
            names.append("FunctionalTensor")
            t = t.elem
        elif torch._is_functional_tensor(t):
            names.append("FunctionalTensorWrapper (C++)")
            t = torch._from_functional_tensor(t)
        else:
            return " > ".join(names + [type(t).__name__])


modes_seen = None


class Peek(Int8WeightTensor):
    @classmethod
    def __torch_dispatch__(cls, func, types, args=(), kwargs=None):
        global modes_seen
        modes = [type(mode).__name__ for mode in _get_current_dispatch_mode_stack()]
        if modes != modes_seen:
            print("  modes active:", ", ".join(modes) or "none")
            modes_seen = modes
        weight = next(a for a in args if isinstance(a, Int8WeightTensor))
        print(f"    {str(func):<19} qdata: {layers_of(weight.qdata)}")
        return super().__torch_dispatch__(func, types, args, kwargs)


torch.manual_seed(0)
peek_layer = torch.nn.Linear(64, 32)
print("nn.Parameter, eager:")
peek_layer.weight = torch.nn.Parameter(Peek.from_float(peek_layer.weight.detach()),
                                       requires_grad=False)
traced = torch.compile(peek_layer, backend="aot_eager", fullgraph=True)
x = torch.randn(4, 64)
with torch.no_grad():
    print("first call, compiling:")
    traced(x)
    print("second call, the compiled code:")
    modes_seen = None
    traced(x)
    print("  (nothing)")
# --8<-- [end:inside]
