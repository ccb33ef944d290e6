"""How ATen declares its own kernels: structured entries in native_functions.yaml, and what
torchgen (shipped in the wheel) generates from them."""

# --8<-- [start:yaml]
from collections import Counter
from pathlib import Path

import torchgen
import yaml

native = Path(torchgen.__file__).parent / "packaged" / "ATen" / "native"
entries = yaml.load((native / "native_functions.yaml").read_text(), Loader=yaml.CSafeLoader)
by_name = {entry["func"].split("(")[0]: entry for entry in entries}
for name in ("silu", "silu_", "silu.out"):
    print(yaml.safe_dump([by_name[name]], sort_keys=False, width=120), end="")
structured = [entry for entry in entries if entry.get("structured")]
delegating = [entry for entry in entries if "structured_delegate" in entry]
print(f"\n{len(entries)} entries: {len(structured)} structured, {len(delegating)} delegate to one")
print("structured_inherits:", dict(Counter(e.get("structured_inherits", "(none)") for e in structured)))
# --8<-- [end:yaml]

# --8<-- [start:codegen]
import re

from torchgen.dest.native_functions import compute_native_function_declaration
from torchgen.dest.register_dispatch_key import RegisterDispatchKey
from torchgen.gen import compute_meta_function_declaration, get_grouped_native_functions, parse_native_yaml
from torchgen.model import DispatchKey, NativeFunctionsGroup
from torchgen.selective_build.selector import SelectiveBuilder
from torchgen.utils import Target

parsed = parse_native_yaml(str(native / "native_functions.yaml"), str(native / "tags.yaml"))
silu = next(group for group in get_grouped_native_functions(parsed.native_functions)
            if isinstance(group, NativeFunctionsGroup) and str(group.out.func.name) == "silu.out")
cpu = parsed.backend_indices[DispatchKey.CPU]
print("one group:", [str(f.func.name) for f in silu.functions()])
# The two classes whose methods TORCH_META_FUNC(silu) and TORCH_IMPL_FUNC(silu_out) define:
print("\n".join(line for line in compute_meta_function_declaration(silu).splitlines() if line.strip()))
print(*compute_native_function_declaration(silu, cpu))


def register_cpu(target):
    generate = RegisterDispatchKey(cpu, target, SelectiveBuilder.get_nop_selector(), rocm=False, symint=True,
                                   class_method_name=None, skip_dispatcher_op_registration=False)
    return "\n".join(generate(silu))


# What RegisterCPU.cpp gets for the group: a subclass per variant, which decides what happens
# when the meta step announces the output, and a wrapper that runs meta, then impl.
code = register_cpu(Target.ANONYMOUS_DEFINITION)
for variant in ("functional", "out", "inplace"):
    body = code.split(f"struct structured_silu_out_{variant} final")[1].split("void set_output_raw_strided(")[1]
    action = next(line.strip() for line in body.splitlines() if re.search(r"(create|resize)_out|check_inplace", line))
    print(f"{variant:<10} set_output_raw_strided: {action}")
for wrapper in ("wrapper_CPU_silu(", "wrapper_CPU_silu_out_out(", "wrapper_CPU_silu_("):
    start = code.rindex("\n", 0, code.index(wrapper)) + 1
    print(code[start:code.index("\n}\n", start) + 3], end="")
print(register_cpu(Target.REGISTRATION))
# --8<-- [end:codegen]
