"""Execution cache: a page whose blocks, includes and environment are unchanged is not run again.

An entry is keyed by everything that can change a page's outputs: each block's code
(includes already expanded), file, line and options; torch's version and commit,
Python and device; and the source of the modules that run and normalise blocks.
Only pages whose every block succeeded are stored. An entry that cannot be read, or
holds a value of the wrong kind (`"output": null`), is ignored and recomputed.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import os
from pathlib import Path

from handbook import switches
from handbook.environment import Environment
from handbook.errors import InputError
from handbook.execution.blocks import Page
from handbook.execution.figures import MATPLOTLIBRC
from handbook.execution.results import BlockRun, CorruptEntry, run_as_json, run_from_json
from handbook.execution.status import Status
from handbook.tree_files import write_atomically

# Read, not imported: importing `preload` would load torch into the build process.
ENGINE_MODULES = (
    "handbook.execution.runner",
    "handbook.execution.page_process",
    "handbook.execution.protocol",
    "handbook.execution.shared_memory",
    "handbook.execution.page_state",
    "handbook.execution.processes",
    "handbook.execution.cgroups",
    "handbook.execution.confinement",
    "handbook.execution.preload",
    "handbook.execution.zygote",
    "handbook.execution.normalise",
    "handbook.execution.figures",
)
FORMAT = 3  # 2: each run says which machine it ran on; 3: and holds its block's figure


def engine_version() -> str:
    digest = hashlib.sha256()
    for module in ENGINE_MODULES:
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


# Settings pages inherit that change what they print: torch's own, the hash seed (set and dict
# orders), the profiler's log level (its timestamped lines). The pipeline sets some of them.
OUTPUT_VARIABLE_PREFIXES = ("TORCH_", "TORCHINDUCTOR_", "ATEN_")
OUTPUT_VARIABLES = {
    "PYTHONHASHSEED",
    "KINETO_LOG_LEVEL",
    "OMP_NUM_THREADS",
    "MKL_NUM_THREADS",
    "MPLBACKEND",
    "SOURCE_DATE_EPOCH",
}

# Where torch keeps its compile caches, the file compiles take turns on, and what pages see
# read-only change no output.
CACHE_DIR_VARIABLES = {*switches.PAGE_CACHES, switches.COMPILE_LOCK, switches.PAGE_READ_ONLY}


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
                f"{path}: the cache directory is not a directory (HANDBOOK_CACHE_DIR, default .cache/handbook): "
                "remove it, or set HANDBOOK_CACHE_DIR to a directory"
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
