"""The page processes' torch: its C++ extension builds do not wait on a dead build's lock."""

from __future__ import annotations

from handbook.environment import installed_torch
from handbook.execution.runner import compile_cache_name

PAGE = """
# Demo

## An extension

See [TensorImpl](pytorch:c10/core/TensorImpl.h#TensorImpl).

```python exec="on"
from torch.utils.cpp_extension import load_inline
path = load_inline(name="tiny", cpp_sources="int answer() { return 42; }", functions=None,
                   is_python_module=False, no_implicit_headers=True)
print(path.rsplit("/", 1)[-1])
```
"""


def test_a_lock_left_by_a_killed_extension_build_does_not_block_the_next(project):
    project.write("docs/demo.md", PAGE)
    assert project.goldens().returncode == 0
    # What a build killed while compiling leaves behind (torch 2.13 marks a running
    # build by this file's existence), in the directory the next build uses: the page's own.
    extensions = project.root / ".cache/torch_extensions" / installed_torch().version
    build_directory = extensions / compile_cache_name("demo.md") / "tiny"
    (build_directory / "tiny.so").unlink()
    (build_directory / "lock").touch()
    result = project.build(HANDBOOK_CACHE="0", DOCS_BLOCK_TIMEOUT="60")  # torch 2.13 alone waits until this runs out
    assert result.returncode == 0, result.stderr
    assert (build_directory / "tiny.so").is_file() and not (build_directory / "lock").exists()
