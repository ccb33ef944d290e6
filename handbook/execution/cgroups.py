"""A cgroup for each page, where the machine lets the build make one (cgroup v2, as root).

Re-parenting, `setsid` and re-forking take a process out of every tree and process
group that a scan of /proc can follow (`processes.py`), but not out of its cgroup:
children are born in their parent's, and leaving it takes a write only the build
makes. A page process makes `handbook-page-<pid>` below the build's own cgroup and
enters it; when the page ends, everything still in it is killed at once
(`cgroup.kill`: the kernel's, atomic, new forks included) and the cgroup removed.
Where cgroup v2 is not mounted, or not writable (a writer's own account, a
read-only /sys), `join` answers None and the tree and group scans are all there is.
"""

from __future__ import annotations

import contextlib
import errno
import os
import time
from pathlib import Path

import psutil

from handbook.execution import processes

PREFIX = "handbook-page-"
EMPTY_SECONDS = 2.0  # how long a killed cgroup may take to empty


def mount() -> Path | None:
    """Where the cgroup v2 hierarchy is mounted (/sys/fs/cgroup, or /sys/fs/cgroup/unified beside v1)."""
    try:
        with open("/proc/self/mounts", encoding="utf-8") as mounts:
            for line in mounts:
                fields = line.split()
                if len(fields) > 2 and fields[2] == "cgroup2":
                    return Path(fields[1])
    except OSError:
        pass
    return None


def _own() -> str | None:
    """This process's cgroup v2 path ("0::/path" in /proc/self/cgroup)."""
    try:
        with open("/proc/self/cgroup", encoding="utf-8") as groups:
            for line in groups:
                if line.startswith("0::"):
                    return line[3:].strip()
    except OSError:
        pass
    return None


def page_group(pid: int) -> Path | None:
    """The cgroup page `pid` makes, below the cgroup of the process asking (the engine, the zygote and
    each page start in the same one)."""
    mount_point, own = mount(), _own()
    if mount_point is None or own is None:
        return None
    own = own.strip("/")
    if Path(own).name.startswith(PREFIX):  # asked from inside a page's group: its parent is the build's
        own = str(Path(own).parent)
    return mount_point / own / f"{PREFIX}{pid}"


def join(pid: int) -> Path | None:
    """Make page `pid`'s cgroup and move it in; None where cgroups cannot be made here."""
    group = page_group(pid)
    if group is None:
        return None
    try:
        group.mkdir()
    except OSError:
        return None
    try:
        (group / "cgroup.procs").write_text(f"{pid}\n")
    except OSError:
        with contextlib.suppress(OSError):
            group.rmdir()
        return None
    return group


def members(group: Path) -> list[int]:
    try:
        return [int(line) for line in (group / "cgroup.procs").read_text().split()]
    except (OSError, ValueError):
        return []


def end(group: Path | None, keep: int | None = None) -> list[processes.Killed]:
    """Kill every process in `group` (`keep`, the page itself, moved out first) and remove the group;
    those killed, named by their command lines."""
    if group is None or not group.is_dir():
        return []
    if keep is not None:
        with contextlib.suppress(OSError):
            (group.parent / "cgroup.procs").write_text(f"{keep}\n")
    found = []
    for pid in members(group):
        try:
            process = psutil.Process(pid)
            if processes.alive(process):
                found.append(processes.Killed(pid, processes.command_line(process)))
        except psutil.Error:
            pass
    with contextlib.suppress(OSError):
        (group / "cgroup.kill").write_text("1\n")
    deadline = time.monotonic() + EMPTY_SECONDS
    while time.monotonic() < deadline:
        try:
            group.rmdir()  # refused while a process is still in it
            break
        except OSError as refused:
            if refused.errno != errno.EBUSY:  # gone; or not this process's to remove (a page without privileges)
                break
            time.sleep(0.02)
    return found


def remove_stale() -> None:
    """The cgroups of pages of builds that were killed before they could remove them: a page's cgroup
    whose page is gone, its members (what that page left) killed."""
    group = page_group(os.getpid())
    if group is None or not group.parent.is_dir():
        return
    for stale in group.parent.glob(f"{PREFIX}*"):
        pid = stale.name.removeprefix(PREFIX)
        if pid.isdigit() and not psutil.pid_exists(int(pid)):
            end(stale)
