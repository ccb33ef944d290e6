"""Publishing this torch's build as one mike version (`python -m handbook deploy`).

One version per torch minor release (`2.13`, titled "torch 2.13"); the newest
recorded release also carries the `latest` alias. mike commits to the local
`gh-pages` branch; nothing is pushed.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from handbook import switches
from handbook.environment import minor_version
from handbook.releases import recorded_releases


def deploy_command(root: Path, release: str, branch: str = "gh-pages") -> list[str]:
    version = minor_version(release)
    releases = recorded_releases(root)
    aliases = ["latest"] if releases and releases[-1] == release else []
    mike = str(Path(sys.executable).parent / "mike")
    return [mike, "deploy", "--branch", branch, "--update-aliases", "--title", f"torch {version}", version, *aliases]


def tool_environment() -> dict[str, str]:
    """mike runs `mkdocs` from PATH: it must be this environment's."""
    path = f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"
    return {**os.environ, "PATH": path, switches.VERSION_PROVIDER: "mike"}
