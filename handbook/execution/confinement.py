"""A page's view of the repository and the build's caches: read-only, where Linux allows it.

A page is code from a pull request (DESIGN.md, "Safe to build"). Its process enters a
mount namespace of its own, in which the tree the build reads (pages, snippets,
recordings, the engine) and the build's caches (the stored runs a later build
publishes) are mounted read-only; torch's compile caches and the page's own
directories stay writable. A block that writes there fails as on a read-only disk,
and no process it starts can do otherwise. The build's own process is not in the
namespace: it records, caches and writes the site as before.

Creating a mount namespace needs CAP_SYS_ADMIN (a build run as root: CI, a container).
Elsewhere (a writer's machine, macOS) the page runs unconfined and the tree guard
(`tree_guard.py`) is what finds a change, after the page. `HANDBOOK_READ_ONLY_TREE=0`
asks for that fallback on purpose (its tests use it).
"""

from __future__ import annotations

import ctypes
import os
from pathlib import Path

from handbook import switches

CLONE_NEWNS = 0x00020000  # <linux/sched.h>
MS_RDONLY, MS_REMOUNT, MS_BIND, MS_REC, MS_PRIVATE = 1, 32, 4096, 16384, 1 << 18  # <linux/mount.h>


class _Refused(OSError):
    pass


def confine(read_only: list[str], writable: list[str]) -> str:
    """Make `read_only` read-only for this process and its children, except `writable` below
    them; return what was done, or why it was not (nothing outside this process's namespace changes)."""
    if switches.off(switches.READ_ONLY_TREE):
        return f"the tree writable ({switches.READ_ONLY_TREE}=0), checked by the tree guard alone"
    tops = _existing(read_only)
    inside = [path for path in _existing(writable) if any(_below(path, top) for top in tops)]
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        _call(libc.unshare, CLONE_NEWNS)
        _call(libc.mount, None, b"/", None, MS_REC | MS_PRIVATE, None)  # nothing done here reaches the host
        for path in inside:  # their own mounts first: the recursive binds below copy them, writable
            _call(libc.mount, path.encode(), path.encode(), None, MS_BIND, None)
        for top in tops:
            _call(libc.mount, top.encode(), top.encode(), None, MS_BIND | MS_REC, None)
            _call(libc.mount, None, top.encode(), None, MS_REMOUNT | MS_BIND | MS_RDONLY, None)
    except (_Refused, AttributeError, OSError) as refused:
        return f"the tree writable (a private read-only mount was refused: {refused}), checked by the tree guard alone"
    return "the tree and the build's caches read-only"


def _call(function, *args) -> None:
    if function(*args) != 0:
        number = ctypes.get_errno()
        raise _Refused(number, os.strerror(number))


def _existing(paths: list[str]) -> list[str]:
    found = []
    for path in paths:
        real = os.path.realpath(path)
        if os.path.isdir(real) and real not in found:
            found.append(real)
    return found


def _below(path: str, top: str) -> bool:
    return Path(path).is_relative_to(top)
