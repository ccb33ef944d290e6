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

PR_SET_CHILD_SUBREAPER = 36  # <linux/prctl.h>


def become_subreaper() -> None:
    """Orphans of this process's descendants become its children rather than init's."""
    try:
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
    except (OSError, AttributeError):
        pass  # not Linux: a process that leaves the tree is not found


def descendants(pid: int) -> list[psutil.Process]:
    """Every live process below `pid` (zombies, already dead, are left out)."""
    try:
        found = psutil.Process(pid).children(recursive=True)
    except psutil.Error:
        return []
    return [process for process in found if _alive(process)]


def _alive(process: psutil.Process) -> bool:
    try:
        return process.status() != psutil.STATUS_ZOMBIE
    except psutil.Error:
        return False


def tree_memory(pid: int) -> tuple[int, list[psutil.Process]]:
    """Resident memory of `pid` and its descendants, summed; and the descendants."""
    below = descendants(pid)
    total = 0
    for process in below:
        try:
            total += process.memory_info().rss
        except psutil.Error:
            pass
    try:
        total += psutil.Process(pid).memory_info().rss
    except psutil.Error:
        pass
    return total, below


def command_line(process: psutil.Process) -> str:
    try:
        return " ".join(process.cmdline()) or f"[{process.name()}]"
    except psutil.Error:
        return f"[pid {process.pid}]"


@dataclass(frozen=True)
class Killed:
    pid: int
    command: str


def kill_all(processes: list[psutil.Process], wait: float = 2.0) -> list[Killed]:
    """SIGKILL each still-running process (a reused pid is left alone); return those killed,
    once each is dead or a zombie, or `wait` seconds have passed."""
    killed, dying = [], []
    for process in processes:
        command = command_line(process)  # before it dies: a zombie has no command line
        try:
            process.kill()
        except psutil.Error:
            continue
        killed.append(Killed(process.pid, command))
        dying.append(process)
    deadline = time.monotonic() + wait
    while any(_alive(process) for process in dying) and time.monotonic() < deadline:
        time.sleep(0.01)
    return killed


def end_descendants(pid: int, rounds: int = 20) -> list[Killed]:
    """Kill every descendant of `pid`, again until none is left: one may fork while the
    others die, and its child is re-parented into the tree."""
    killed: list[Killed] = []
    for _ in range(rounds):
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
