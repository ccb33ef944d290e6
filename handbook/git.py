"""Git, as the build uses it: one way to run it, one timeout, typed failures, small named operations.

Two policies, each named by the function that applies it. What a build only *shows* (the
commit a block's `file:line` links to, a page's last change, when a translated section's
original changed) is read with `read`: a tree that is not a git checkout, or a git that fails,
gives None, and the build goes on without it. What a command *changes* (publishing a file on
the `gh-pages` branch) runs with `run`, which raises GitError naming the command and what git
said. mike's `git_utils` is the model.
"""

from __future__ import annotations

import os
import subprocess
import tempfile
from pathlib import Path

from handbook.errors import InputError

TIMEOUT = 60.0  # seconds: the slowest call is `git log` over a page's history


class GitError(InputError):
    """A git command that failed, with what git said."""


def run(root: Path, *args: str, env: dict[str, str] | None = None) -> str:
    """`git <args>` in `root`, its output; GitError if it cannot run or fails."""
    try:
        done = subprocess.run(
            ["git", *args], cwd=root, env=env, capture_output=True, text=True, timeout=TIMEOUT, check=False
        )
    except (OSError, subprocess.SubprocessError) as error:
        raise GitError(f"git {' '.join(args)}: {error}") from error
    if done.returncode != 0:
        raise GitError(f"git {' '.join(args)} failed (exit {done.returncode}): {done.stderr.strip()}")
    return done.stdout


def read(root: Path, *args: str) -> str | None:
    """`git <args>` in `root`, its output; None where it cannot tell (no checkout, no git, a failure)."""
    try:
        return run(root, *args)
    except GitError:
        return None


def head(root: Path) -> str | None:
    """The commit `root` is checked out at, where `root` is the top of a git checkout."""
    top = read(root, "rev-parse", "--show-toplevel")
    commit = read(root, "rev-parse", "HEAD")
    if top is None or commit is None or Path(top.strip()).resolve() != root.resolve():
        return None
    return commit.strip()


def changed_paths(root: Path) -> frozenset[str]:
    """The paths in which the work tree differs from HEAD: changed, added or not tracked."""
    changed = (read(root, "diff", "--name-only", "-z", "HEAD") or "") + (read(root, "ls-files", "--others", "-z") or "")
    return frozenset(path for path in changed.split("\0") if path)


def last_changed(root: Path, path: str) -> str | None:
    """The date (YYYY-MM-DD) of the last commit that touched `path`."""
    return (read(root, "log", "-1", "--format=%cs", "--", path) or "").strip() or None


def file_history(root: Path, path: str) -> list[tuple[str, str]]:
    """(commit, date) of every commit that touched `path`, newest first."""
    return [tuple(line.split()) for line in (read(root, "log", "--format=%H %cs", "--", path) or "").splitlines()]


def file_at(root: Path, commit: str, path: str) -> str:
    """`path` as it was at `commit` ("" where it did not exist)."""
    return read(root, "show", f"{commit}:{path}") or ""


def copy_within_branch(root: Path, branch: str, source: str, target: str, message: str) -> str:
    """Commit onto `branch` the file it holds at `source` again at `target` (plumbing only: the work
    tree and its index are untouched); returns the new commit."""
    with tempfile.TemporaryDirectory() as scratch:
        env = {**os.environ, "GIT_INDEX_FILE": str(Path(scratch) / "index")}
        blob = run(root, "rev-parse", f"{branch}:{source}", env=env).strip()
        run(root, "read-tree", branch, env=env)
        run(root, "update-index", "--add", "--cacheinfo", f"100644,{blob},{target}", env=env)
        tree = run(root, "write-tree", env=env).strip()
        commit = run(root, "commit-tree", tree, "-p", branch, "-m", message, env=env).strip()
        run(root, "update-ref", f"refs/heads/{branch}", commit, env=env)
    return commit


def extract(root: Path, commit: str, path: str, into: Path) -> None:
    """Write the files `commit` (a commit or branch) holds under `path` beneath `into`."""
    try:
        archive = subprocess.run(
            ["git", "archive", commit, path], cwd=root, capture_output=True, timeout=TIMEOUT, check=True
        ).stdout
        subprocess.run(["tar", "-x", "-C", str(into)], input=archive, capture_output=True, timeout=TIMEOUT, check=True)
    except (OSError, subprocess.SubprocessError) as error:
        raise GitError(f"git archive {commit} {path}: {error}") from error
