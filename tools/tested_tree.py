"""Whether `make test`'s tests already passed on exactly this tree: a second `make test` of an unchanged
tree does not run them again, as make does not build again what is newer than its inputs.

What the tests read is what the digest covers: every file of the tree as git sees it (tracked or
not ignored; by content, so a checkout or a touch changes nothing), the built sites the tests read
(each file's path, size and modification time: a rebuild changes them), each environment's installed
packages (its site-packages directory, which an install or removal changes, and its install stamp),
axe-core and the browser, the interpreter, and the environment variables the build, torch or pytest read.
The record is written only after the tests passed, and only if the tests left that digest as it was.

    python tools/tested_tree.py --record FILE [--site SITE ...] [--again] -- COMMAND ...
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import platform
import shutil
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
ENVIRONMENTS = (".venv", ".venv-*")
TOOLS = ("node_modules/axe-core/axe.min.js",)
BROWSERS = ("chromium", "chromium-browser")
# The variables that change what a build, torch, a page or pytest does.
VARIABLE_PREFIXES = ("HANDBOOK_", "DOCS_", "ATEN_", "TORCH", "PYTEST", "OMP_", "MKL_", "CUDA_", "PLAYWRIGHT", "PIP_")


def tree_files(repo: Path) -> list[str]:
    """The tree's files as git sees them: tracked, and untracked ones git does not ignore."""
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=repo,
        capture_output=True,
        check=True,
    ).stdout
    return sorted({name.decode() for name in listed.split(b"\0") if name})


def _stat_line(path: Path, root: Path) -> str:
    status = path.stat()
    return f"{path.relative_to(root).as_posix()} {status.st_size} {status.st_mtime_ns}"


def digest(lines: list[str]) -> str:
    """What the tests read, as one digest."""
    return hashlib.sha256("".join(line + "\n" for line in lines).encode()).hexdigest()


def read_lines(repo: Path, sites: list[Path], variables: dict[str, str]) -> list[str]:
    """What the tests read (see the module's docstring), a line an item."""
    lines = []
    add = lines.append

    for name in tree_files(repo):
        path = repo / name
        content = hashlib.sha256(path.read_bytes()).hexdigest() if path.is_file() else "absent"
        add(f"tree {name} {content}")
    for site in sites:
        add(f"site {site}")
        if site.is_dir():
            for path in sorted(p for p in site.rglob("*") if p.is_file()):
                add(_stat_line(path, site))
    for pattern in ENVIRONMENTS:
        for environment in sorted(repo.glob(pattern)):
            for packages in sorted(environment.glob("lib/python*/site-packages")):
                add(f"packages {_stat_line(packages, repo)}")
            stamp = environment / ".installed"
            add(f"installed {_stat_line(stamp, repo) if stamp.exists() else environment.name + ' none'}")
    for name in TOOLS:
        path = repo / name
        add(f"tool {_stat_line(path, repo) if path.exists() else name + ' none'}")
    for browser in filter(None, map(shutil.which, BROWSERS)):
        add(f"browser {_stat_line(Path(browser).resolve(), Path('/'))}")
    add(f"python {sys.version} {platform.machine()}")
    for name in sorted(variables):
        if name.startswith(VARIABLE_PREFIXES):
            add(f"variable {name}={variables[name]}")
    return lines


def changed(before: list[str], after: list[str], most: int = 10) -> list[str]:
    """The items that differ between two readings, `-` before and `+` after, at most `most` of them."""
    kept_before, kept_after = set(before), set(after)
    differing = [f"- {line}" for line in before if line not in kept_after]
    differing += [f"+ {line}" for line in after if line not in kept_before]
    return differing[:most] + ([f"... and {len(differing) - most} more"] if len(differing) > most else [])


def run(repo: Path, record: Path, sites: list[Path], command: list[str], again: bool = False) -> int:
    """`command` (the tests), unless `record` says they passed on this very tree; its exit status."""
    read_before = read_lines(repo, sites, dict(os.environ))
    before = digest(read_before)
    passed = _read(record)
    if not again and passed.get("digest") == before:
        print(
            f"The tests passed on this very tree at {passed['passed']} (digest {before[:12]}): "
            "not run again; `make test RETEST=1` runs them anyway."
        )
        return 0
    record.unlink(missing_ok=True)
    status = subprocess.run(command).returncode
    if status == 0:
        read_after = read_lines(repo, sites, dict(os.environ))
        if read_after == read_before:
            when = time.strftime("%Y-%m-%d %H:%M:%S %Z")
            record.write_text(json.dumps({"digest": before, "passed": when}) + "\n", encoding="utf-8")
        else:  # the tests changed what they read: the next run runs them again
            print(
                "The tests changed what they read: not recorded as passed on this tree.",
                *changed(read_before, read_after),
                sep="\n  ",
                file=sys.stderr,
            )
    return status


def _read(record: Path) -> dict:
    try:
        passed = json.loads(record.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return passed if isinstance(passed, dict) else {}


def main(arguments: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--record", type=Path, required=True, help="where a passing run is recorded")
    parser.add_argument("--site", type=Path, action="append", default=[], help="a built site the tests read")
    parser.add_argument("--again", action="store_true", help="run the tests even if they passed on this tree")
    parser.add_argument("command", nargs="+", help="the tests (after --)")
    options = parser.parse_args(arguments)
    return run(REPO, options.record, options.site, options.command, options.again)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
