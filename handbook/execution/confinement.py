"""A page's view of the machine: read-only but for its own directories, and no power to undo it.

A page is code from a pull request (DESIGN.md, "Safe to build"). Its process enters a
mount namespace of its own, in which the whole file system is read-only (recursively:
`mount_setattr`) but for the page's own directories (its working directory, its capture
files, its temporary directory, its compile caches), and
`/dev/shm` is a memory file system of its own, as large as the page's memory limit and
gone with the page. A block that writes the tree, the build's caches, `.git` or anything
else fails as on a read-only disk, and so does every process it starts. The build's own
process is not in the namespace: it records, caches and writes the site as before.
(On a kernel without `mount_setattr`, before Linux 5.12, the tree and the build's caches
are made read-only instead, as bind mounts.)

Then the page gives up every privilege, whatever it had: each capability (so that
`mount -o remount,rw`, `umount`, `setns()` into another namespace and another process's
`/proc/PID/root` are refused, as root too), with no way back (no new privileges: a setuid
program gains none), and, as root, it becomes undumpable, so that another page cannot
trace it.

Creating a mount namespace needs CAP_SYS_ADMIN (a build run as root: CI in a container).
Elsewhere (a writer's machine, a hosted runner without sudo, macOS) the page runs without
the view, and the tree guard (`tree_guard.py`) is what finds a change to the tree, the
build's stored runs or `.git`, after the page. `HANDBOOK_READ_ONLY_TREE=0` asks for that
fallback on purpose (its tests use it); privileges are given up either way.
"""

from __future__ import annotations

import ctypes
import os
from pathlib import Path

from handbook import switches

CLONE_NEWNS = 0x00020000  # <linux/sched.h>
MS_RDONLY, MS_NOSUID, MS_NODEV = 1, 2, 4  # <linux/mount.h>
MS_REMOUNT, MS_BIND, MS_REC, MS_PRIVATE = 32, 4096, 16384, 1 << 18
MOUNT_SETATTR = 442  # the system call's number, the same on x86-64 and aarch64 (<asm-generic/unistd.h>)
AT_FDCWD, AT_RECURSIVE = -100, 0x8000
MOUNT_ATTR_RDONLY = 0x1
PR_SET_DUMPABLE, PR_CAPBSET_DROP, PR_SET_NO_NEW_PRIVS, PR_CAP_AMBIENT = 4, 24, 38, 47  # <linux/prctl.h>
PR_CAP_AMBIENT_CLEAR_ALL = 4
CAPABILITY_VERSION_3 = 0x20080522  # <linux/capability.h>

VIEW = "the file system read-only but for their own directories"
TREE_VIEW = "the tree and the build's caches read-only"


class _Refused(OSError):
    pass


class _MountAttributes(ctypes.Structure):
    _fields_ = [
        ("attr_set", ctypes.c_uint64),
        ("attr_clr", ctypes.c_uint64),
        ("propagation", ctypes.c_uint64),
        ("userns_fd", ctypes.c_uint64),
    ]


def confine(
    read_only: list[str], writable: list[str], shm_bytes: int = 0, settings: switches.Settings | None = None
) -> str:
    """Make this process's view of the file system read-only but for `writable` (with a /dev/shm of its
    own of `shm_bytes`), then give up every privilege; return what was done, or why the view was not
    made (nothing outside this process's namespace changes). `read_only`: what is made read-only where
    the whole file system cannot be."""
    if not (settings or switches.read()).read_only_tree:
        return unconfined()
    return f"{_view(read_only, writable, shm_bytes)}, {drop_privileges()}"


def unconfined() -> str:
    """No view (`HANDBOOK_READ_ONLY_TREE=0`): privileges are given up all the same."""
    return f"the tree writable ({switches.READ_ONLY_TREE}=0), checked by the tree guard alone, {drop_privileges()}"


def _view(read_only: list[str], writable: list[str], shm_bytes: int) -> str:
    holes = _existing(writable)
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        _call(libc.unshare, CLONE_NEWNS)
        _call(libc.mount, None, b"/", None, MS_REC | MS_PRIVATE, None)  # nothing done here reaches the host
        if not _read_only_below(libc, "/"):
            return _tree_view(libc, read_only, holes)
        for hole in holes:
            _writable_copy(libc, hole, hole)
        if shm_bytes and os.path.isdir("/dev/shm"):
            options = f"size={shm_bytes},mode=1777".encode()
            _call(libc.mount, b"tmpfs", b"/dev/shm", b"tmpfs", MS_NOSUID | MS_NODEV, options)
    except (_Refused, AttributeError, OSError) as refused:
        return f"the tree writable (a private read-only mount was refused: {refused}), checked by the tree guard alone"
    return VIEW


def _read_only_below(libc, top: str) -> bool:
    """Every mount at and below `top` read-only; False where the kernel has no mount_setattr."""
    attributes = _MountAttributes(attr_set=MOUNT_ATTR_RDONLY)
    flags = AT_RECURSIVE
    done = libc.syscall(MOUNT_SETATTR, AT_FDCWD, top.encode(), flags, ctypes.byref(attributes), 32)
    if done != 0:
        number = ctypes.get_errno()
        if number in (38, 22):  # ENOSYS, EINVAL: a kernel before 5.12
            return False
        raise _Refused(number, os.strerror(number))
    return True


def _writable_copy(libc, source: str, target: str) -> None:
    """`source` mounted at `target`, writable (a copy of a read-only mount is read-only until told)."""
    _call(libc.mount, source.encode(), target.encode(), None, MS_BIND, None)
    attributes = _MountAttributes(attr_clr=MOUNT_ATTR_RDONLY)
    _call(libc.syscall, MOUNT_SETATTR, AT_FDCWD, target.encode(), 0, ctypes.byref(attributes), 32)


def _tree_view(libc, read_only: list[str], holes: list[str]) -> str:
    """Before Linux 5.12: `read_only` (the tree, the caches) made read-only as bind mounts, but for `holes`."""
    tops = _existing(read_only)
    inside = [path for path in holes if any(_below(path, top) for top in tops)]
    for path in inside:  # their own mounts first: the recursive binds below copy them, writable
        _call(libc.mount, path.encode(), path.encode(), None, MS_BIND, None)
    for top in tops:
        _call(libc.mount, top.encode(), top.encode(), None, MS_BIND | MS_REC, None)
        _call(libc.mount, None, top.encode(), None, MS_REMOUNT | MS_BIND | MS_RDONLY, None)
    return TREE_VIEW


class _CapabilityHeader(ctypes.Structure):
    _fields_ = [("version", ctypes.c_uint32), ("pid", ctypes.c_int)]


class _CapabilityData(ctypes.Structure):
    _fields_ = [("effective", ctypes.c_uint32), ("permitted", ctypes.c_uint32), ("inheritable", ctypes.c_uint32)]


def drop_privileges() -> str:
    """Give up every capability, for good (the bounding set emptied, no ambient ones, no new privileges
    from a setuid program), and, as root, become undumpable; what was done, in words."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        held = _capabilities()
        for capability in range(_last_capability() + 1):
            libc.prctl(PR_CAPBSET_DROP, capability, 0, 0, 0)  # refused without CAP_SETPCAP: then none is held
        libc.prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0)
        header, data = _CapabilityHeader(CAPABILITY_VERSION_3, 0), (_CapabilityData * 2)()
        _call(libc.capset, ctypes.byref(header), data)
        _call(libc.prctl, PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)
        if held:
            _call(libc.prctl, PR_SET_DUMPABLE, 0, 0, 0, 0)
    except (_Refused, AttributeError, OSError) as refused:
        return f"privileges kept (giving them up was refused: {refused})"
    return "without privileges" if held else "without privileges (none held)"


def _capabilities() -> bool:
    """Whether this process holds any capability now (or its bounding set any to regain as root)."""
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            fields = dict(line.split(":", 1) for line in status if ":" in line)
    except OSError:
        return os.geteuid() == 0
    return any(int(fields.get(name, "0").strip() or "0", 16) for name in ("CapEff", "CapPrm"))


def _last_capability() -> int:
    try:
        return int(Path("/proc/sys/kernel/cap_last_cap").read_text())
    except (OSError, ValueError):
        return 63


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


CAP_SYS_ADMIN = 21


def expected(settings: switches.Settings | None = None) -> bool:
    """Whether pages get a view here: Linux, this process able to make a mount namespace (CAP_SYS_ADMIN),
    and the view not switched off. Then a page whose view cannot be seen from here does not run."""
    if not (settings or switches.read()).read_only_tree:
        return False
    capabilities = _status_field("self", "CapEff")
    return capabilities > 0 and bool(capabilities >> CAP_SYS_ADMIN & 1)


def verified(pid: int, paths: list[str]) -> bool:
    """What the engine sees of page `pid` (not what the page says): no capability left, and each of `paths`
    on a read-only mount of its namespace."""
    if _status_field(str(pid), "CapEff") != 0:
        return False
    try:
        with open(f"/proc/{pid}/mountinfo", encoding="utf-8", errors="replace") as mountinfo:
            mounts = [line.split() for line in mountinfo]
    except OSError:
        return False
    for path in paths:
        covering = [
            fields for fields in mounts if len(fields) > 5 and _below(os.path.realpath(path), _unescaped(fields[4]))
        ]
        # The deepest mount point holding the path; of two at one point, the later (it covers the first).
        covering.sort(key=lambda fields: len(_unescaped(fields[4])))
        if not covering or "ro" not in covering[-1][5].split(","):
            return False
    return True


def _unescaped(field: str) -> str:
    """A mount point as /proc/PID/mountinfo writes it (space, tab, newline and backslash as octal escapes)."""
    for escape, character in (("\\040", " "), ("\\011", "\t"), ("\\012", "\n"), ("\\134", "\\")):
        field = field.replace(escape, character)
    return field


def _status_field(pid: str, name: str) -> int:
    """A hexadecimal field of /proc/PID/status (CapEff), or -1 where it cannot be read."""
    try:
        with open(f"/proc/{pid}/status", encoding="ascii", errors="replace") as status:
            for line in status:
                if line.startswith(f"{name}:"):
                    return int(line.split(":", 1)[1].strip(), 16)
    except (OSError, ValueError):
        pass
    return -1
