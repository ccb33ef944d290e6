"""The execute step's record: one edition's checked runs, kept for the render step of the same state.

`<cache>/runs/<edition>.json` holds every block's run with a key: the digest of the tree the
build reads, the torch, Python and device the pages ran on, the engine's source, and the
settings pages inherit. A render step whose key is the same runs no page. Nothing in it is
believed for its word: its runs are checked against the recordings again (`pipeline.run_site`,
given runs), as cached runs are.
"""

from __future__ import annotations

import functools
import hashlib
import json
import platform
from dataclasses import dataclass
from pathlib import Path

from handbook import switches
from handbook.environment import cache_root, installed_torch, python_minor
from handbook.execution import pipeline
from handbook.execution.cache import engine_version, output_settings
from handbook.execution.results import BlockRun, CorruptEntry, SiteRun, run_as_json, run_from_json
from handbook.execution.tree_guard import tree_digest
from handbook.tree_files import write_atomically

RECORD_FORMAT = 1


def edition_name() -> str:
    """What one build's own files are kept under: its torch release and Python."""
    return f"{installed_torch().release}-py{python_minor(platform.python_version())}"


@dataclass
class Stored:
    """What the execute step recorded: every block's run, by page, and what it ran itself."""

    runs: dict[str, list[BlockRun]]
    executed_pages: list[str]
    seconds: float
    ran_again: set[str]


class Record:
    """The execute step's checked results, kept for the render step of the same tree, torch and settings."""

    def __init__(self, root: Path, settings: switches.Settings | None = None):
        self.root = root
        self.settings = settings or switches.read()
        self.path = cache_root(root, self.settings) / "runs" / f"{edition_name()}.json"
        self.shown = self.path.relative_to(root).as_posix() if self.path.is_relative_to(root) else str(self.path)

    @functools.cached_property
    def key(self) -> str:
        """What the results depend on: the tree the build reads, the torch and Python, the settings; taken
        once per step (a tree that pages changed is never recorded: see `prebuild.prepare`)."""
        payload = {
            "format": RECORD_FORMAT,
            "tree": tree_digest(self.root),
            "environment": pipeline.page_environment(self.root).as_dict(),
            "engine": engine_version(),
            "settings": output_settings(),
            "limits": self.settings.limits(),
        }
        return hashlib.sha256(json.dumps(payload, sort_keys=True).encode()).hexdigest()

    def read(self) -> Stored | None:
        """The runs recorded of this tree as it is now; None if there are none (or they are unreadable)."""
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
            if not isinstance(data, dict) or data.get("key") != self.key:
                return None
            runs = {page: [run_from_json(entry) for entry in entries] for page, entries in data["runs"].items()}
            return Stored(runs, list(data["executed_pages"]), float(data["seconds"]), set(data["ran_again"]))
        except (OSError, ValueError, KeyError, TypeError, AttributeError, CorruptEntry):
            return None

    def write(self, site: SiteRun) -> None:
        record = {
            "key": self.key,
            "runs": {page: [run_as_json(r) for r in results] for page, results in site.results.items()},
            "executed_pages": site.executed_pages,
            "seconds": site.seconds,
            "ran_again": sorted({r.block.page for r in site.all_results() if r.ran_again}),
        }
        write_atomically(self.path, json.dumps(record))
