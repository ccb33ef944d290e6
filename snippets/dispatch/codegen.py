"""native_functions.yaml and the code generated from it."""
import torch

# --8<-- [start:yaml_entry]
from pathlib import Path

import torchgen

native_dir = Path(torchgen.__file__).parent / "packaged" / "ATen" / "native"
yaml_text = (native_dir / "native_functions.yaml").read_text()


def yaml_entry(text, func_name):
    """Return the YAML block of one `- func:` entry, as written in the file."""
    start = text.index(f"- func: {func_name}(")
    end = text.find("\n\n", start)
    return text[start:end]


print("entries in native_functions.yaml:", yaml_text.count("\n- func: ") + yaml_text.startswith("- func: "))
print(yaml_entry(yaml_text, "add.Tensor"))
print()
print(yaml_entry(yaml_text, "add.out"))
# --8<-- [end:yaml_entry]

# --8<-- [start:torchgen]
# Parse the YAML the way the build does, and ask codegen what it will emit.
from torchgen.gen import parse_native_yaml

parsed = parse_native_yaml(str(native_dir / "native_functions.yaml"), str(native_dir / "tags.yaml"))
by_name = {str(f.func.name): f for f in parsed.native_functions}
out_fn = by_name["add.out"]
print("add.Tensor structured_delegate:", by_name["add.Tensor"].structured_delegate)
print("add.out structured:", out_fn.structured, "| inherits:", out_fn.structured_inherits)
for key in ["CPU", "CUDA", "MPS", "SparseCPU", "MkldnnCPU"]:
    index = next(v for k, v in parsed.backend_indices.items() if str(k) == key)
    kernel = index.get_kernel(out_fn)
    print(f"  {key:<10} kernel={kernel.kernel:<22} structured={kernel.structured}")
# --8<-- [end:torchgen]

# --8<-- [start:derivatives]
autograd_dir = Path(torchgen.__file__).parent / "packaged" / "autograd"
deriv_text = (autograd_dir / "derivatives.yaml").read_text()
start = deriv_text.index("- name: add.Tensor(")
print(deriv_text[start:deriv_text.index("\n\n", start)])
# --8<-- [end:derivatives]

# --8<-- [start:ops_struct]
# Generated headers ship in the wheel: read them from the installed torch.
include = Path(torch.__file__).parent / "include" / "ATen" / "ops"


def excerpt(text, first_line, end="\n}"):
    """From the line that starts with `first_line` to the next `end`, inclusive."""
    start = text.index(first_line)
    return text[start:text.index(end, start) + len(end)]


mul_ops_h = (include / "mul_ops.h").read_text()
print("// torch/include/ATen/ops/mul_ops.h:", mul_ops_h.splitlines()[3])
print(excerpt(mul_ops_h, "struct TORCH_API mul_Tensor {", "\n};"))
print()
print("// torch/include/ATen/ops/mul.h:")
print(excerpt((include / "mul.h").read_text(), "inline at::Tensor mul(const at::Tensor & self, const at::Tensor & other)"))
# --8<-- [end:ops_struct]

# --8<-- [start:operators_call]
# The definitions of call/redispatch live in the generated Operators_*.cpp, which
# the wheel does not ship; the wheel's torchgen writes them again from the YAML.
from torchgen.gen import ComputeOperators
from torchgen.utils import Target

mul_fn = by_name["mul.Tensor"]
print(ComputeOperators(Target.DEFINITION, static_dispatch_backend_indices=[])(mul_fn).strip())
# --8<-- [end:operators_call]

# --8<-- [start:register_cpu]
# What RegisterCPU_*.cpp holds for mul: written by the same generator the build ran.
from torchgen import dest
from torchgen.gen import get_grouped_native_functions
from torchgen.model import DispatchKey, NativeFunctionsGroup
from torchgen.selective_build.selector import SelectiveBuilder

mul_group = next(g for g in get_grouped_native_functions(parsed.native_functions)
                 if isinstance(g, NativeFunctionsGroup) and g.functional is mul_fn)


def register_dispatch_key(target):
    return dest.RegisterDispatchKey(
        parsed.backend_indices[DispatchKey.CPU], target, SelectiveBuilder.get_nop_selector(),
        rocm=False, symint=True, class_method_name=None, skip_dispatcher_op_registration=False)


wrappers = "\n".join(register_dispatch_key(Target.ANONYMOUS_DEFINITION)(mul_group))
print(excerpt(wrappers, "at::Tensor wrapper_CPU_mul_Tensor("))
print("\n".join(register_dispatch_key(Target.REGISTRATION)(mul_group)))
cpu_row = next(line for line in torch._C._dispatch_dump_table("aten::mul.Tensor").splitlines()
               if line.startswith("CPU:"))
print("dispatch table, CPU row:", cpu_row.split("/__w/pytorch/pytorch/")[1])
# --8<-- [end:register_cpu]

# --8<-- [start:variable_type]
# The autograd kernel in VariableType_*.cpp, from tools/autograd (torchgen/packaged/autograd).
import re

from torchgen.api.autograd import match_differentiability_info
from torchgen.packaged.autograd.gen_variable_type import gen_variable_type_func
from torchgen.packaged.autograd.load_derivatives import load_derivatives

# Only mul.Tensor's entry of derivatives.yaml: loading all of it takes seconds.
start = deriv_text.index("- name: mul.Tensor(")
Path("mul_derivatives.yaml").write_text(deriv_text[start:deriv_text.index("\n\n", start)] + "\n")
infos, _ = load_derivatives("mul_derivatives.yaml",
                            str(native_dir / "native_functions.yaml"), str(native_dir / "tags.yaml"))
generated = gen_variable_type_func(match_differentiability_info([mul_fn], infos)[0])
kernel = generated["type_derived_method_definitions_Default"][0]
# Drop the debug-build-only checks (#ifndef NDEBUG ... #endif): release wheels compile them out.
print(re.sub(r"\n *#ifndef NDEBUG\n.*?#endif", "", kernel, flags=re.S).strip())
print(generated["wrapper_registrations_Default"][0].strip())
autograd_row = next(line for line in torch._C._dispatch_dump_table("aten::mul.Tensor").splitlines()
                    if line.startswith("AutogradCPU:"))
print("dispatch table, AutogradCPU row:", autograd_row.split("/__w/pytorch/pytorch/")[1])
# --8<-- [end:variable_type]

# --8<-- [start:backend_select]
# Factory functions have no tensor argument to take keys from. BackendSelect's
# generated kernel (RegisterBackendSelect.cpp) computes the key from the arguments.
from torchgen.gen import ComputeBackendSelect

empty_strided = by_name["empty_strided"]
print(ComputeBackendSelect(Target.DEFINITION, SelectiveBuilder.get_nop_selector())(empty_strided).strip())
for op in ["aten::empty_strided", "aten::add.Tensor"]:
    row = next(line for line in torch._C._dispatch_dump_table(op).splitlines()
               if line.startswith("BackendSelect:"))
    where = row.split("/__w/pytorch/pytorch/")[1]
    kind = "fallthrough " * ("fallthrough" in row) + where[where.rindex("[") + 1:-1]
    print(f"{op:<20} BackendSelect: {kind:<28} {where[:where.rindex(' [')]}")
# --8<-- [end:backend_select]
