"""`python -m handbook.versions deploy`: publish this torch's build as one mike version.

One version per torch minor release (`2.13`, titled "torch 2.13"); the newest
recorded release also carries the `latest` alias. mike commits to the local
`gh-pages` branch; nothing is pushed.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path

from handbook.environment import installed_torch, minor_version
from handbook.recordings import recorded_releases


def deploy_command(root: Path, release: str, branch: str = "gh-pages") -> list[str]:
    version = minor_version(release)
    releases = recorded_releases(root)
    aliases = ["latest"] if releases and releases[-1] == release else []
    mike = str(Path(sys.executable).parent / "mike")
    return [mike, "deploy", "--branch", branch, "--update-aliases", "--title", f"torch {version}", version, *aliases]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("action", choices=["deploy"])
    parser.add_argument("--root", type=Path, default=Path("."))
    parser.add_argument("--branch", default="gh-pages")
    args = parser.parse_args()
    command = deploy_command(args.root.resolve(), installed_torch().release, args.branch)
    print(" ".join(command))
    return subprocess.run(command, cwd=args.root, env=tool_environment()).returncode


def tool_environment() -> dict[str, str]:
    """mike runs `mkdocs` from PATH: it must be this environment's."""
    path = f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"
    return {**os.environ, "PATH": path, "HANDBOOK_VERSION_PROVIDER": "mike"}


if __name__ == "__main__":
    sys.exit(main())
