"""What pages keep in /dev/shm: memory too, counted in a page's limit and removed when it ends.

A file in /dev/shm (POSIX shared memory: a DataLoader's batches, `shm_open`) is memory no
process's size shows once it is unmapped, and outlives the process that wrote it. Where a page
has a view of its own (`confinement`), its /dev/shm is a memory file system of its own, as
large as its limit: what it holds is read from the engine's side (`page_bytes`) and counted
with the page's processes, and it is gone with the page. Elsewhere /dev/shm is the machine's:
what it gained since the build started counts against each page running (`Watch.grown`), and
when the build's pages have ended, what they left there that no process holds is removed
(`Watch.clean`).
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

SHM = Path("/dev/shm")


def _used(path: Path | str) -> int:
    try:
        stats = os.statvfs(path)
    except OSError:
        return 0
    return (stats.f_blocks - stats.f_bfree) * stats.f_frsize


def _device(path: Path | str) -> int | None:
    try:
        return os.stat(path).st_dev
    except OSError:
        return None


def page_bytes(pid: int) -> int | None:
    """What the page `pid` holds in a /dev/shm of its own; None where it has none (it shares the machine's)."""
    own = f"/proc/{pid}/root{SHM}"
    device = _device(own)
    if device is None or device == _device(SHM):
        return None
    return _used(own)


class Watch:
    """/dev/shm as the build found it: what pages added since, and what they left."""

    def __init__(self) -> None:
        self.before = _used(SHM)
        self.names = _names()
        self.shared = False  # a page used the machine's /dev/shm (it had none of its own)

    def grown(self) -> int:
        self.shared = True
        return max(0, _used(SHM) - self.before)

    def clean(self) -> list[str]:
        """Remove the files pages added to the machine's /dev/shm that no process holds open or mapped
        (a library's that outlives its page, a concurrent build's, are held); the names removed. Nothing
        where every page had a /dev/shm of its own."""
        added = {name: identity for name in _names() - self.names if self.shared and (identity := _ours(SHM / name))}
        if not added:
            return []
        held = _held(set(added.values()))
        removed = []
        for name, identity in sorted(added.items()):
            if identity not in held:
                with contextlib.suppress(OSError):
                    (SHM / name).unlink()
                    removed.append(name)
        return removed


def _names() -> set[str]:
    try:
        return {entry.name for entry in os.scandir(SHM) if entry.is_file(follow_symlinks=False)}
    except OSError:
        return set()


Identity = tuple[int, int, int]  # a file's device (major, minor) and inode


def _ours(path: Path) -> Identity | None:
    """The file's identity, if it is this user's."""
    try:
        found = path.lstat()
    except OSError:
        return None
    if found.st_uid != os.geteuid():
        return None
    return os.major(found.st_dev), os.minor(found.st_dev), found.st_ino


def _held(files: set[Identity]) -> set[Identity]:
    """Which of `files` a process has open or mapped (of the processes the build may look into), by their
    identity: a mapping names the file it was made from, which may have had another name then
    (glibc makes a named semaphore under a temporary name, and links it)."""
    held: set[Identity] = set()
    for process in Path("/proc").iterdir():
        if not process.name.isdigit():
            continue
        with contextlib.suppress(OSError):
            for fd in (process / "fd").iterdir():
                with contextlib.suppress(OSError):
                    found = os.stat(fd)
                    held.add((os.major(found.st_dev), os.minor(found.st_dev), found.st_ino))
        with contextlib.suppress(OSError):
            for line in (process / "maps").read_text(errors="replace").splitlines():
                fields = line.split(maxsplit=5)
                if len(fields) > 4 and fields[4] != "0":
                    major, _, minor = fields[3].partition(":")
                    held.add((int(major, 16), int(minor, 16), int(fields[4])))
    return held & files
