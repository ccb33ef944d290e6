"""The torch releases the handbook has recordings for, in packaging's order, and the rules that pick one.

A release is supported when `recordings/torch-<release>/` exists. Each edition is
compared with the release before it (What changed); a release without recordings is
checked against its nearest neighbour (the drift report, `make new-release`).
"""

from __future__ import annotations

from pathlib import Path

from handbook.environment import release_order, version_key


def recorded_releases(root: Path) -> list[str]:
    found = [p.name.removeprefix("torch-") for p in (root / "recordings").glob("torch-*") if p.is_dir()]
    return sorted(found, key=release_order)


def nearest_release(root: Path, release: str) -> str | None:
    """The recorded release closest to `release`: a new torch is first compared with its neighbour."""
    target = version_key(release)

    def distance(other: str) -> tuple[int, ...]:
        return tuple(abs(a - b) for a, b in zip(version_key(other), target, strict=False))

    releases = [r for r in recorded_releases(root) if r != release]
    return min(releases, key=distance) if releases else None


def previous_release(root: Path, release: str) -> str | None:
    releases = recorded_releases(root)
    position = releases.index(release) if release in releases else 0
    return releases[position - 1] if position > 0 else None
