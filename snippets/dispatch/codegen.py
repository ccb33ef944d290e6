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
