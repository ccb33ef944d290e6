"""A tree blocks cannot change unseen: what the build reads, hashed before and after each page runs.

A page is code from a pull request (DESIGN.md, "Safe to build"). A block that rewrote
its own recording would pass its own check; one that wrote a page or edited
mkdocs.yml would publish it on the next build. The pages, snippets, recordings,
the site's configuration and the engine itself are hashed before any page runs and
again as each page ends; any change fails the build, naming the page that ran (or
the pages that may have) and the files changed.

Where pages run without a read-only view (`confinement`: a build that is not root, or
`HANDBOOK_READ_ONLY_TREE=0`), the build's stores are guarded too: this edition's stored
runs (the execution cache, the execute step's record), its source-symbol answers, and the
repository's git directories (a block that moved `gh-pages` would publish it). Those are
large or written by git, so a file's identity there is its inode, size and times (its
change time, which no process can set back, moves with any write), not its bytes; the
engine's own writes are taken in as it makes them (`accept`).
"""

from __future__ import annotations

import hashlib
import os
import stat
from pathlib import Path

from handbook import languages
from handbook.errors import InputError
from handbook.log_text import escaped

GUARDED = (
    *(*languages.DOCS_DIRS, *languages.LABS_DIRS, "snippets", "recordings", "notes"),
    *(*languages.CONFIGS, "handbook", "overrides"),
)
UNGUARDED_NAMES = {"__pycache__"}  # Python's own byte code, written as modules are imported


# In a git directory: the index (git's staging area, rewritten by `git status`), locks and reflogs
# change with no effect on what a build reads or publishes.
GIT_UNGUARDED = {"index", "logs"}


def stat_digest(path: Path) -> str:
    """A file's identity without reading it: kind, inode, size, modification and change times."""
    try:
        found = path.lstat()
    except OSError as error:
        return f"unreadable: {error.strerror}"
    return f"{stat.filemode(found.st_mode)} {found.st_ino} {found.st_size} {found.st_mtime_ns} {found.st_ctime_ns}"


def stores_snapshot(stores: list[Path], root: Path) -> dict[str, str]:
    """Each file under `stores` (a store may be one file) -> its `stat_digest`, by its path as shown."""
    found: dict[str, str] = {}
    for top in stores:
        if not top.is_dir():
            if top.exists() or top.is_symlink():
                found[_shown(top, root)] = stat_digest(top)
            continue
        for directory, subdirectories, files in os.walk(top):
            subdirectories[:] = [d for d in subdirectories if d not in GIT_UNGUARDED]
            for entry in files + [d for d in subdirectories if (Path(directory) / d).is_symlink()]:
                if entry not in GIT_UNGUARDED and not entry.endswith(".lock"):
                    found[_shown(Path(directory) / entry, root)] = stat_digest(Path(directory) / entry)
    return found


def _shown(path: Path, root: Path) -> str:
    return path.relative_to(root).as_posix() if path.is_relative_to(root) else str(path)


def git_directories(root: Path) -> list[Path]:
    """The repository's git directory and, for a worktree, the common one it shares (`.git` is then a file)."""
    dot_git = root / ".git"
    if dot_git.is_dir():
        return [dot_git]
    try:
        text = dot_git.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return []
    if not text.startswith("gitdir: "):
        return []
    own = (root / text.removeprefix("gitdir: ").strip()).resolve()
    try:
        common = (own / (own / "commondir").read_text(encoding="utf-8").strip()).resolve()
    except (OSError, UnicodeDecodeError):
        return [own]
    return [own, common] if not own.is_relative_to(common) else [common]


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
    """The guarded tree (and `stores`, files or directories, by `stat_digest`) as it was when the guard
    was made, checked again as pages end."""

    def __init__(self, root: Path, stores: list[Path] | None = None):
        self.root = root
        self.stores = stores or []
        self.last = self._now()
        self.findings: list[str] = []

    def _now(self) -> dict[str, str]:
        return snapshot(self.root) | stores_snapshot(self.stores, self.root)

    def accept(self, path: Path) -> None:
        """The build wrote `path` itself (a run it stored): not a page's change."""
        if any(path.is_relative_to(store) for store in self.stores):
            self.last[_shown(path, self.root)] = stat_digest(path)

    def unchanged(self, page: str, beside: list[str], theirs: list[Path] | None = None) -> bool:
        """Whether the tree is as it was when `page` (a page's file, `docs/tensors.md`) ended; a change
        is kept, with `page` and the pages that may have been running `beside` it, for `raise_if_changed`.
        `theirs`: what those pages write themselves (their compile caches), where a change is theirs to make."""
        others = [other for other in beside if other != page]
        beside_it = f" (or a page running beside it: {_pages(others)})" if others else ""
        self._look(f"when {page} ended{beside_it}", theirs or [])
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
                "pages and their translations, snippets, recordings, the configurations, handbook/, overrides/; "
                "where pages see them writable, the build's stored runs and the git directory). "
                "Nothing was recorded or cached "
                "from the pages that may have; see `git status`, and restore the files:\n" + "\n".join(self.findings)
            )

    def _look(self, when: str, theirs: list[Path] | None = None) -> None:
        now = self._now()
        own = tuple(_shown(path, self.root) + "/" for path in theirs or [])
        for path in {*now, *self.last}:
            if path.startswith(own):  # what the pages that ran write themselves is taken in as it is
                self._take(path, now)
        changed = changes(self.last, now)
        if changed:  # a file a page named as it liked
            self.findings.append(escaped(f"  {when}: {', '.join(changed)}"))
            self.last = now

    def _take(self, path: str, now: dict[str, str]) -> None:
        if path in now:
            self.last[path] = now[path]
        else:
            self.last.pop(path, None)


def _pages(pages: list[str]) -> str:
    return ", ".join(pages)
