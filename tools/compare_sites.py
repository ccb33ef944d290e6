"""Compare two builds of the handbook file by file: `python tools/compare_sites.py SITE OTHER`.

Used where one tree is built two ways that must agree: by MkDocs and by ProperDocs (the
CI job `properdocs`), and by `make build` and by `python -m handbook execute` followed by a
render-only build (`tests/site/test_prebuild.py`). Only what is known to differ between two
builds of one tree is set aside, each for its reason (NORMALISED); anything else that
differs, or a file only one of them has, fails the comparison, naming it.
"""

from __future__ import annotations

import gzip
import json
import re
import sys
from pathlib import Path

# What two builds of one tree may write differently, and why.
NORMALISED = {
    # The generator names itself: mkdocs-1.6.1 or properdocs-1.6.7.
    "generator": re.compile(r'<meta name="generator" content="[^"]*"'),
    # A build's own date, should two builds straddle midnight: the banner's, the sitemap's.
    "build-date": re.compile(r"(?<=, on )\d{4}-\d{2}-\d{2}(?=\.)"),
    "lastmod": re.compile(r"<lastmod>[^<]*</lastmod>"),
}
# In the execution report: when the build ran and how long each block took.
REPORT_TIMES = {"generated", "seconds"}
DIFFERENCES_SHOWN = 20


def normalised(path: Path) -> bytes:
    data = path.read_bytes()
    if path.suffix == ".gz":
        data = gzip.decompress(data)
    if path.name == "execution-report.json":
        return json.dumps(_without_times(json.loads(data)), sort_keys=True).encode()
    if path.suffix in {".html", ".xml", ".json", ".gz"}:
        text = data.decode("utf-8")
        for name, pattern in NORMALISED.items():
            text = pattern.sub(f"<{name}>", text)
        return text.encode()
    return data


def _without_times(value):
    if isinstance(value, dict):
        return {key: _without_times(item) for key, item in value.items() if key not in REPORT_TIMES}
    if isinstance(value, list):
        return [_without_times(item) for item in value]
    return value


def differences(site: Path, other: Path) -> list[str]:
    """Each file that differs between the two sites, or that only one has; [] when they agree."""
    files = {p.relative_to(site).as_posix() for p in site.rglob("*") if p.is_file()}
    others = {p.relative_to(other).as_posix() for p in other.rglob("*") if p.is_file()}
    found = [f"only in {site}: {name}" for name in sorted(files - others)]
    found += [f"only in {other}: {name}" for name in sorted(others - files)]
    found += [
        f"differs: {name}" for name in sorted(files & others) if normalised(site / name) != normalised(other / name)
    ]
    return found


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print("usage: python tools/compare_sites.py SITE OTHER", file=sys.stderr)
        return 2
    site, other = (Path(arg) for arg in argv)
    for directory in (site, other):
        if not (directory / "index.html").is_file():
            print(f"error: {directory} is not a built site (no index.html)", file=sys.stderr)
            return 2
    found = differences(site, other)
    for line in found[:DIFFERENCES_SHOWN]:
        print(line, file=sys.stderr)
    if len(found) > DIFFERENCES_SHOWN:
        print(f"... and {len(found) - DIFFERENCES_SHOWN} more", file=sys.stderr)
    count = sum(1 for p in site.rglob("*") if p.is_file())
    print(f"{site} and {other}: {count} files, {len(found)} difference(s)", file=sys.stderr)
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
