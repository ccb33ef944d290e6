"""Publishing this torch's build as one mike version (`python -m handbook deploy`).

One version per torch minor release (`2.13`, titled "torch 2.13"); the newest
recorded release also carries the `latest` alias. mike commits to the local
`gh-pages` branch; nothing is pushed.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from handbook import git, switches
from handbook.environment import minor_version
from handbook.releases import is_final, recorded_releases

NOT_FOUND_PAGE = "404.html"
LATEST = "latest"  # the alias of the newest recorded release, and the default version


def carries_latest(root: Path, release: str) -> bool:
    """Whether `release` is the newest recorded final release: its version is `latest`, the default."""
    releases = [recorded for recorded in recorded_releases(root) if is_final(recorded)]
    return bool(releases) and releases[-1] == release


def deploy_command(
    root: Path, release: str, branch: str = "gh-pages", config: str = "mkdocs.yml", prefix: str = ""
) -> list[str]:
    """mike's command deploying `config`'s build of `release`; a language other than the default goes
    under `prefix` of the branch (`zh/2.13/`), with a versions.json of its own for its selector."""
    version = minor_version(release)
    aliases = [LATEST] if carries_latest(root, release) else []
    mike = str(Path(sys.executable).parent / "mike")
    where = ["--config-file", config, *(["--deploy-prefix", prefix] if prefix else [])]
    return [
        mike,
        "deploy",
        "--branch",
        branch,
        *where,
        "--update-aliases",
        "--title",
        f"torch {version}",
        version,
        *aliases,
    ]


def tool_environment() -> dict[str, str]:
    """mike runs `mkdocs` from PATH: it must be this environment's."""
    path = f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"
    return {**os.environ, "PATH": path, switches.VERSION_PROVIDER: "mike"}


def publish_not_found_page(root: Path, version: str, branch: str = "gh-pages") -> str:
    """Commit `version`'s 404 page as the branch's own: GitHub Pages answers every missing address
    of the site with the 404.html at the root of the branch, which mike leaves without one. The
    version's page works there, since mike builds each version with its own directory as
    site_url, so its stylesheets, scripts and links are absolute addresses into that directory.
    Returns the new commit."""
    message = f"{NOT_FOUND_PAGE} at the root: torch {version}'s"
    return git.copy_within_branch(root, branch, f"{version}/{NOT_FOUND_PAGE}", NOT_FOUND_PAGE, message)


def branch_commit(root: Path, branch: str = "gh-pages") -> str | None:
    """The commit `branch` is at, or None where there is no such branch."""
    commit = git.read(root, "rev-parse", "--verify", "--quiet", f"refs/heads/{branch}")
    return commit.strip() if commit else None


def restore_branch(root: Path, branch: str, commit: str | None) -> None:
    """Put `branch` back at `commit` (delete it where it did not exist): a deploy that published what
    may not be published is undone before anything is pushed."""
    ref = f"refs/heads/{branch}"
    git.run(root, "update-ref", ref, commit) if commit else git.run(root, "update-ref", "-d", ref)


def published_site(root: Path, branch: str, path: str, into: Path) -> Path:
    """The files `branch` holds under `path` (a version's site), written under `into`; their directory."""
    git.extract(root, branch, path, into)
    return into / path
