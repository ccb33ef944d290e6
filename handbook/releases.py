"""The torch releases the handbook has recordings for, in packaging's order, and the rules that pick one.

A release is recorded when `recordings/torch-<release>/` names a release as torch numbers
them (`2.15.0`, `2.16.0rc1`: three numbers, no epoch, no local part, as packaging writes it) and
holds recordings (outputs, or the source anchors every `make goldens` writes): an empty or
misnamed directory a pull request adds is no release. Each edition is compared with the
release before it (What changed); a release without recordings is checked against its
nearest neighbour (the drift report, `make new-release`). The newest recorded final release
(never a pre-release) is `latest` (`versions.carries_latest`).
"""

from __future__ import annotations

from pathlib import Path

from packaging.version import InvalidVersion, Version

from handbook.environment import release_order, version_key

ANCHORS = "source-anchors.tsv"  # `execution.recordings.ANCHORS`: what every recorded release holds


def recorded_releases(root: Path) -> list[str]:
    found = [
        p.name.removeprefix("torch-")
        for p in (root / "recordings").glob("torch-*")
        if p.is_dir() and not p.is_symlink() and is_release(p.name.removeprefix("torch-")) and _holds_recordings(p)
    ]
    return sorted(found, key=release_order)


def is_release(name: str) -> bool:
    """Whether `name` is a torch release as packaging writes one: three numbers (a pre-release's suffix
    allowed), no epoch, no local part."""
    try:
        version = Version(name)
    except InvalidVersion:
        return False
    return version.epoch == 0 and version.local is None and len(version.release) == 3 and str(version) == name


def is_final(release: str) -> bool:
    """A release, not a pre-release or a development one: only such a release may be `latest`."""
    version = Version(release)
    return not (version.is_prerelease or version.is_postrelease or version.is_devrelease)


def _holds_recordings(directory: Path) -> bool:
    return (directory / ANCHORS).is_file() or next(directory.rglob("*.txt"), None) is not None


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
