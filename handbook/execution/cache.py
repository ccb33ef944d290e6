"""Execution cache: a page whose blocks, includes and environment are unchanged is not run again.

An entry is keyed by everything that can change a page's outputs: each block's code
(includes already expanded), file, line and options; torch's version and commit,
Python and device; and the source of the modules that run and normalise blocks.
Only pages whose every block succeeded are stored. An entry that cannot be read, or
holds a value of the wrong kind (`"output": null`), is ignored and recomputed.
"""

from __future__ import annotations

import ast
import functools
import hashlib
import importlib.util
import json
import os
from pathlib import Path

from handbook import switches
from handbook.environment import CACHE_DIR, Environment
from handbook.errors import InputError
from handbook.execution import page_settings
from handbook.execution.blocks import Page
from handbook.execution.figures import MATPLOTLIBRC
from handbook.execution.results import BlockRun, CorruptEntry, run_as_json, run_from_json
from handbook.execution.status import Status
from handbook.tree_files import write_atomically

# What runs a page, and what it imports from the package (`engine_modules`): editing any of
# them re-runs every page.
ENGINE_ROOTS = (
    "handbook.execution.runner",
    "handbook.execution.zygote",
    "handbook.execution.page_process",
    "handbook.execution.normalise",
)


@functools.cache
def engine_modules(roots: tuple[str, ...] = ENGINE_ROOTS, package: str = "handbook") -> tuple[str, ...]:
    """`roots` and every module of `package` they import, at any depth, imports inside functions
    included: read, not imported (importing `preload` would load torch into the build process).
    A package's `__init__` is left out: it holds only its docstring."""
    top = Path(importlib.util.find_spec(package).origin).parent.parent
    found: set[str] = set()
    todo = list(roots)
    while todo:
        module = todo.pop()
        if module in found:
            continue
        found.add(module)
        for node in ast.walk(ast.parse(_module_file(top, module).read_bytes())):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                names = [node.module, *(f"{node.module}.{alias.name}" for alias in node.names)]
            else:
                continue
            todo += [name for name in names if name.split(".")[0] == package and _module_file(top, name).is_file()]
    return tuple(sorted(found))


def _module_file(top: Path, module: str) -> Path:
    """Where `module`'s source is, if it is a module (not a package, nor a name a module defines)."""
    return top.joinpath(*module.split(".")).with_suffix(".py")


FORMAT = 3  # 2: each run says which machine it ran on; 3: and holds its block's figure


def engine_version(modules: tuple[str, ...] | None = None) -> str:
    """The text of the engine's modules (`engine_modules`), and what every figure is drawn with."""
    digest = hashlib.sha256()
    for module in modules or engine_modules():
        digest.update(Path(importlib.util.find_spec(module).origin).read_bytes())
    digest.update(MATPLOTLIBRC.read_bytes())  # what every figure is drawn with
    return digest.hexdigest()[:16]


def cache_key(page: Page, environment: Environment) -> str:
    payload = {
        "format": FORMAT,
        "engine": engine_version(),
        "environment": environment.as_dict(),
        "page": page.path,
        "blocks": [[b.id, b.code, b.origin_file, b.origin_line, sorted(b.options.items())] for b in page.blocks],
        "torch_env": output_settings(),
    }
    return hashlib.sha256(json.dumps(payload, sort_keys=True).encode()).hexdigest()


# Settings pages inherit that change what they print: torch's own, those the pipeline gives every
# page (`page_settings`), and the thread counts a build may be given. Where things are kept is not.
OUTPUT_VARIABLE_PREFIXES = ("TORCH_", "TORCHINDUCTOR_", "ATEN_")
OUTPUT_VARIABLES = page_settings.OUTPUTS | {"OMP_NUM_THREADS", "MKL_NUM_THREADS"}
CACHE_DIR_VARIABLES = page_settings.PLACES


def output_settings() -> list[tuple[str, str]]:
    """The settings of this process's environment that pages inherit and that change what they
    print (ATEN_CPU_CAPABILITY: torch's kernels), as a key's part."""
    return sorted(
        (k, v)
        for k, v in os.environ.items()
        if (k.startswith(OUTPUT_VARIABLE_PREFIXES) or k in OUTPUT_VARIABLES) and k not in CACHE_DIR_VARIABLES
    )


class CacheError(InputError):
    """A cache directory the build cannot use."""


def check_cache_root(directory: Path) -> None:
    """The cache root is a directory, or can become one."""
    for path in (directory, *directory.parents):
        if path.exists() and not path.is_dir():
            raise CacheError(
                f"{path}: the cache directory is not a directory ({switches.CACHE_DIR}, default {CACHE_DIR}): "
                f"remove it, or set {switches.CACHE_DIR} to a directory"
            )
        if path.exists():
            return


class ExecutionCache:
    def __init__(self, directory: Path, enabled: bool = True):
        self.directory = directory
        self.enabled = enabled

    def _path(self, key: str) -> Path:
        return self.directory / key[:2] / f"{key}.json"

    def load(self, key: str, blocks: int) -> list[BlockRun] | None:
        if not self.enabled:
            return None
        try:
            data = json.loads(self._path(key).read_text(encoding="utf-8"))
            runs = [run_from_json(entry) for entry in data["runs"]]
        except (OSError, ValueError, KeyError, TypeError, CorruptEntry):
            return None  # missing or corrupt: recompute
        if len(runs) != blocks or not all(Status(run.status).storable for run in runs):
            return None
        return runs

    def store(self, key: str, runs: list[BlockRun]) -> Path | None:
        """Keep a page's runs under `key` (only runs that may be kept); the file written, if any."""
        if not self.enabled or not all(Status(run.status).storable for run in runs):
            return None
        write_atomically(self._path(key), json.dumps({"runs": [run_as_json(run) for run in runs]}))
        return self._path(key)
