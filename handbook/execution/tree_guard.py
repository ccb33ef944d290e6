"""A tree blocks cannot change unseen: what the build reads, hashed before and after each page runs.

A page is code from a pull request (DESIGN.md, "Safe to build"). A block that rewrote
its own recording would pass its own check; one that wrote a page or edited
mkdocs.yml would publish it on the next build. The pages, snippets, recordings,
the site's configuration and the engine itself are hashed before any page runs and
again as each page ends; any change fails the build, naming the page that ran (or
the pages that may have) and the files changed.
"""

from __future__ import annotations

import hashlib
import os
import stat
from pathlib import Path

from handbook.errors import InputError

GUARDED = (
    *("docs", "docs-zh", "snippets", "labs", "labs-zh", "recordings", "notes"),
    *("mkdocs.yml", "mkdocs.zh.yml", "handbook", "overrides"),
)
UNGUARDED_NAMES = {"__pycache__"}  # Python's own byte code, written as modules are imported


class TreeChangedError(InputError):
    """Pages changed the files the build reads."""


def snapshot(root: Path) -> dict[str, str]:
    """Repository-relative path -> a digest of what it is: a file's bytes, or a link's target."""
    found: dict[str, str] = {}
    for name in GUARDED:
        top = root / name
        if top.is_file() or top.is_symlink():
            found[name] = _digest(top)
            continue
        for directory, subdirectories, files in os.walk(top):
            subdirectories[:] = [d for d in subdirectories if d not in UNGUARDED_NAMES]
            for entry in files + [d for d in subdirectories if (Path(directory) / d).is_symlink()]:
                path = Path(directory) / entry
                found[path.relative_to(root).as_posix()] = _digest(path)
    return found


def _digest(path: Path) -> str:
    try:
        mode = path.lstat().st_mode
        if stat.S_ISLNK(mode):
            return f"link to {os.readlink(path)}"
        if not stat.S_ISREG(mode):  # a FIFO would block the build on open; a socket cannot be read
            return f"not a regular file (mode {stat.filemode(mode)})"
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError as error:  # a file already gone again, or unreadable
        return f"unreadable: {error.strerror}"


def tree_digest(root: Path) -> str:
    """One digest of everything the build reads: what a built site records, so that a test reading
    it can tell whether it was built from the tree as it is now."""
    digest = hashlib.sha256()
    for path, value in sorted(snapshot(root).items()):
        digest.update(f"{path}\0{value}\0".encode())
    return digest.hexdigest()


def changes(before: dict[str, str], after: dict[str, str]) -> list[str]:
    """Each path that differs, with what happened to it."""
    return [
        f"{path} ({'added' if path not in before else 'removed' if path not in after else 'changed'})"
        for path in sorted(before.keys() | after.keys())
        if before.get(path) != after.get(path)
    ]


class TreeGuard:
    """The guarded tree as it was when the guard was made, checked again as pages end."""

    def __init__(self, root: Path):
        self.root = root
        self.last = snapshot(root)
        self.findings: list[str] = []

    def unchanged(self, page: str, beside: list[str]) -> bool:
        """Whether the tree is as it was when `page` (a page's file, `docs/tensors.md`) ended; a change
        is kept, with `page` and the pages that may have been running `beside` it, for `raise_if_changed`."""
        others = [other for other in beside if other != page]
        beside_it = f" (or a page running beside it: {_pages(others)})" if others else ""
        self._look(f"when {page} ended{beside_it}")
        return not self.findings

    def look_last(self, ran: list[str]) -> list[str]:
        """Look a last time (a process a page left behind may write after its page ended); every
        change found in this build, one line each; `ran` are the pages that ran."""
        if ran:  # where nothing ran, a change is someone's editing
            self._look(f"after the pages ended (by a process one of them left: {_pages(ran)})")
        return self.findings

    def raise_if_changed(self, ran: list[str]) -> None:
        """`look_last`, then raise TreeChangedError for every change found."""
        if self.look_last(ran):
            raise TreeChangedError(
                "pages changed the repository while they ran; a page may not change what the build reads (its "
                "pages and their translations, snippets, recordings, the configurations, handbook/, overrides/). "
                "Nothing was recorded or cached "
                "from the pages that may have; see `git status`, and restore the files:\n" + "\n".join(self.findings)
            )

    def _look(self, when: str) -> None:
        now = snapshot(self.root)
        changed = changes(self.last, now)
        if changed:
            self.findings.append(f"  {when}: {', '.join(changed)}")
            self.last = now


def _pages(pages: list[str]) -> str:
    return ", ".join(pages)
