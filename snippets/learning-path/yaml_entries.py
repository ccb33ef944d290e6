"""Layers 4 and 5: the YAML that generates mul's bindings and its derivative (Learning path)."""

# --8<-- [start:yaml_helper]
import pathlib

import torchgen

packaged = pathlib.Path(torchgen.__file__).parent / "packaged"


def yaml_entry(path, head):
    """The lines of the YAML list item that starts with `head`."""
    lines = path.read_text().splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(head))
    end = start + 1
    while end < len(lines) and lines[end].startswith("  "):
        end += 1
    while lines[end - 1].lstrip().startswith("#"):   # a comment that belongs to the next entry
        end -= 1
    return "\n".join(lines[start:end])


native = packaged / "ATen" / "native" / "native_functions.yaml"
print(yaml_entry(native, "- func: mul.Tensor("))
print()
print(yaml_entry(native, "- func: mul.out("))
print()
import torch

op = torch.ops.aten.mul.Tensor       # the same entry, as the runtime sees it
print("schema:", op._schema)
print("tags  :", [tag.name for tag in op.tags])
# --8<-- [end:yaml_helper]

# --8<-- [start:derivatives]
derivatives = packaged / "autograd" / "derivatives.yaml"
print(yaml_entry(derivatives, "- name: mul.Tensor("))
# --8<-- [end:derivatives]
