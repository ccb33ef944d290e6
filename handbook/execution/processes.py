"""The processes a page starts: found, measured and ended as one tree.

A page process makes itself a child subreaper, so a process whose parent exits (a
daemon's double fork, `setsid sh -c 'server &'`) is re-parented to the page process
and stays in its tree instead of escaping to init; leaving the page's process group
(setsid) does not take it out of the tree either. The tree is what a page's memory
is measured over, and what is killed when the page ends.
"""

from __future__ import annotations

import ctypes
import os
import signal
import time
from dataclasses import dataclass

import psutil

PR_SET_PDEATHSIG = 1  # <linux/prctl.h>
PR_GET_DUMPABLE, PR_SET_DUMPABLE = 3, 4
PR_SET_CHILD_SUBREAPER = 36


def _prctl(option: int, value: int) -> bool:
    """Linux's prctl(2); False where there is none (another system)."""
    try:
        return ctypes.CDLL(None, use_errno=True).prctl(option, value, 0, 0, 0) == 0
    except (OSError, AttributeError):
        return False


def become_subreaper() -> None:
    """Orphans of this process's descendants become its children rather than init's."""
    _prctl(PR_SET_CHILD_SUBREAPER, 1)  # not Linux: a process that leaves the tree is not found


def undumpable() -> None:
    """No process without CAP_SYS_PTRACE (a page) may trace this one, nor read its memory, its environment,
    its descriptors or its root through /proc (a program it runs is dumpable again)."""
    _prctl(PR_SET_DUMPABLE, 0)


def dumpable(flag: bool) -> bool:
    """Make this process dumpable or not (see `undumpable`); whether it was."""
    try:
        was = ctypes.CDLL(None, use_errno=True).prctl(PR_GET_DUMPABLE, 0, 0, 0, 0) == 1
    except (OSError, AttributeError):
        return True
    _prctl(PR_SET_DUMPABLE, int(flag))
    return was


def die_with_parent(parent: int) -> None:
    """This process is killed when `parent` (single-threaded: the death of the thread that forked
    it counts) dies; if it already has, now. Not Linux: it is ended by its parent only."""
    if _prctl(PR_SET_PDEATHSIG, signal.SIGKILL) and os.getppid() != parent:
        os._exit(1)


def descendants(pid: int) -> list[psutil.Process]:
    """Every live process below `pid` (zombies, already dead, are left out)."""
    return [process for process in _listed(pid) if alive(process)]


def _listed(pid: int) -> list[psutil.Process]:
    """Every process below `pid`, zombies included."""
    try:
        return psutil.Process(pid).children(recursive=True)
    except psutil.Error:
        return []


def alive(process: psutil.Process) -> bool:
    try:
        return process.status() != psutil.STATUS_ZOMBIE
    except psutil.Error:
        return False


def tree_memory(pid: int) -> tuple[int, list[psutil.Process]]:
    """Resident memory of `pid` and its descendants, summed (an upper bound: memory they share,
    such as torch's libraries inherited from one fork, is counted once per process); and the descendants."""
    below = descendants(pid)
    return _summed(_with(pid, below), lambda process: process.memory_info().rss), below


def proportional_memory(pid: int, below: list[psutil.Process]) -> int:
    """Memory of `pid` and `below` with each shared page counted once (the sum of their PSS,
    /proc/PID/smaps_rollup): slower to read than RSS, so read only when RSS says too much."""
    return _summed(_with(pid, below), lambda process: process.memory_full_info().pss)


def _with(pid: int, below: list[psutil.Process]) -> list[psutil.Process]:
    try:
        return [psutil.Process(pid), *below]
    except psutil.Error:
        return below


def _summed(found: list[psutil.Process], measure) -> int:
    total = 0
    for process in found:
        try:
            total += measure(process)
        except (psutil.Error, AttributeError):  # gone, or no PSS on this system (then: nothing counted twice known)
            pass
    return total


def command_line(process: psutil.Process) -> str:
    try:
        return " ".join(process.cmdline()) or f"[{process.name()}]"
    except psutil.Error:
        return f"[pid {process.pid}]"


def describe(process: psutil.Process) -> str:
    """One line for a process: pid, state, what the kernel has it waiting in, and its command line."""
    try:
        state = process.status()
    except psutil.Error:
        state = "gone"
    try:
        with open(f"/proc/{process.pid}/wchan", encoding="ascii", errors="replace") as wchan:
            waiting = wchan.read().strip()
    except OSError:
        waiting = ""
    waiting = f" in {waiting}" if waiting and waiting != "0" else ""
    return f"{process.pid} {state}{waiting}: {command_line(process)[:MAX_DESCRIBED_COMMAND]}"


MAX_DESCRIBED_COMMAND = 300


@dataclass(frozen=True)
class Killed:
    pid: int
    command: str


def kill_all(processes: list[psutil.Process], wait: float = 2.0) -> list[Killed]:
    """SIGKILL each still-running process (a reused pid is left alone); return those killed,
    once each is dead or a zombie, or `wait` seconds have passed."""
    killed, dying = [], []
    commands = [command_line(process) for process in processes]  # before any dies: a zombie has none
    _signal_groups(processes, signal.SIGKILL)  # a stopped re-forker's group holds its live child
    for process, command in zip(processes, commands, strict=True):
        try:
            process.kill()  # one its group's signal ended is a zombie still, and is killed again
        except psutil.Error:
            continue  # gone before: it ended, and was collected, on its own
        killed.append(Killed(process.pid, command))
        dying.append(process)
    deadline = time.monotonic() + wait
    while any(alive(process) for process in dying) and time.monotonic() < deadline:
        time.sleep(0.01)
    return killed


def freeze(pid: int, wait: float = 2.0) -> None:
    """SIGSTOP every descendant of `pid`, and its process group, again until all are stopped.

    A stopped process forks no more. A process that re-forks faster than the tree can be
    listed is gone, replaced by its child, before it is signalled; its group (a daemon's
    own, after setsid) is the same for its child, and stopping the group stops the child.
    The caller's own group is signalled process by process, or it would stop itself."""
    deadline = time.monotonic() + wait
    while time.monotonic() < deadline:
        below = _listed(pid)
        # Zombies too: a re-forker's exited parents keep its group, and the listing (a scan of
        # /proc, slower than its forks) can miss the live child entirely.
        _signal_groups(below, signal.SIGSTOP)
        running = [process for process in below if alive(process) and not _stopped(process)]
        if not running:
            return
        for process in running:
            try:
                process.suspend()
            except psutil.Error:
                pass


def _signal_groups(found: list[psutil.Process], signal_number: int) -> None:
    own = os.getpgid(0)
    for group in {_group(process) for process in found} - {own, None}:
        try:
            os.killpg(group, signal_number)
        except OSError:
            pass


def _group(process: psutil.Process) -> int | None:
    try:
        group = os.getpgid(process.pid)
        # Its pid may have been reused since it was listed: by a new page, whose group is its pid.
        return group if process.is_running() else None
    except (OSError, psutil.Error):
        return None


def _stopped(process: psutil.Process) -> bool:
    try:
        return process.status() in {psutil.STATUS_STOPPED, psutil.STATUS_TRACING_STOP}
    except psutil.Error:
        return True  # gone


def end_descendants(pid: int, rounds: int = 20) -> list[Killed]:
    """Freeze every descendant of `pid`, then kill them, again until none is left: one caught
    between fork and stop has its child re-parented into the tree."""
    killed: list[Killed] = []
    for _ in range(rounds):
        freeze(pid)
        found = descendants(pid)
        if not found:
            break
        killed += kill_all(found)
    return killed


def end_tree(pid: int) -> list[Killed]:
    """Stop `pid` so that it starts nothing more, kill its descendants, then kill it;
    return the descendants killed."""
    try:
        os.kill(pid, signal.SIGSTOP)
    except OSError:
        pass
    killed = end_descendants(pid)
    try:
        os.kill(pid, signal.SIGKILL)
    except OSError:
        pass
    return killed


def reap_children() -> None:
    """Collect the exit status of this process's dead children, so none stays a zombie."""
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return
