"""The source index: repository paths of the files a wheel does not ship (`.cpp`, `.cu`), known
to exist at its tag because the compiler recorded them in the shared libraries."""

from __future__ import annotations

import re
from pathlib import Path

from handbook.environment import installed_torch, site_packages
from handbook.sources.tree import BUILD_PREFIX, GENERATED, index_path
from handbook.tree_files import write_atomically


def paths_in_libraries(packages: Path) -> set[str]:
    """Source paths that the compiler recorded in the shared libraries (assertions, logging)."""
    # A suffix ends the path (`.cuh` is not `.cu`, nor `.hpp` `.h`): the longest is tried first.
    suffix = rb"\.(?:cpp|cuh|cu|cc|c|hpp|h|py|yaml)(?![A-Za-z0-9_+-])"
    pattern = re.compile(re.escape(BUILD_PREFIX) + rb"([A-Za-z0-9_./+-]+" + suffix + rb")")
    found: set[str] = set()
    for library in sorted((packages / "torch" / "lib").glob("*.so*")):
        for match in pattern.finditer(library.read_bytes()):
            path = match[1].decode()
            if not path.startswith("build/") and not any(p.search(path) for p in GENERATED):
                found.add(path)
    return found


def write_index(root: Path) -> Path:
    packages = site_packages()
    identity = installed_torch(packages)
    path = index_path(root, identity)
    path.parent.mkdir(parents=True, exist_ok=True)
    header = (
        f"# torch: {identity.version}\n# git_version: {identity.git_version}\n# made by `python -m handbook "
        "source-index` from the source paths in torch/lib/*.so\n"
    )
    write_atomically(path, header + "".join(f"{p}\n" for p in sorted(paths_in_libraries(packages))))
    return path
