"""A cgroup per page, where the machine allows one: what escapes every tree and process group is ended too."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import psutil
import pytest

from handbook.execution import cgroups
from handbook.execution.runner import BlockJob, PageJob, run_pages

REPO = Path(__file__).resolve().parent.parent

# Every generation in a session of its own, its parent gone at once: no process group holds
# two of them, and each lives 2 ms, shorter than a scan of /proc.
NEW_SESSION_EACH_FORK = """
import os, sys, time
while True:
    os.setsid()
    time.sleep(0.002)
    if os.fork():
        os._exit(0)
"""


def _can_make_groups() -> bool:
    probe = subprocess.Popen(["sleep", "30"])
    try:
        group = cgroups.join(probe.pid)
        if group is None:
            return False
        cgroups.end(group)
        return True
    finally:
        probe.kill()
        probe.wait()


CGROUPS = pytest.mark.skipif(not _can_make_groups(), reason="no writable cgroup v2 hierarchy here")


def _marked(marker: str) -> list[psutil.Process]:
    found = []
    for process in psutil.process_iter(["cmdline", "status"]):
        if marker in (process.info["cmdline"] or []) and process.info["status"] != psutil.STATUS_ZOMBIE:
            found.append(process)
    return found


def _kill_marked(marker: str) -> None:
    for process in _marked(marker):
        try:
            os.kill(process.pid, signal.SIGKILL)
        except OSError:
            pass


@CGROUPS
def test_a_group_is_made_joined_killed_at_once_and_removed():
    marker = f"new-session-{random.randint(10_000, 99_999)}"
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        group = cgroups.join(child.pid)
        assert group is not None and group.name == f"handbook-page-{child.pid}"
        assert cgroups.members(group) == [child.pid]
        killed = cgroups.end(group)
        assert [k.pid for k in killed] == [child.pid] and "time.sleep(60)" in killed[0].command
        assert child.wait(timeout=10) == -signal.SIGKILL
        assert not group.exists()
    finally:
        child.kill()
        _kill_marked(marker)


@CGROUPS
def test_a_daemon_that_takes_a_new_session_at_every_fork_ends_with_its_page():
    marker = f"new-session-{random.randint(10_000, 99_999)}"
    code = (
        "import subprocess, sys, time\n"
        f"subprocess.Popen([sys.executable, '-c', {NEW_SESSION_EACH_FORK!r}, {marker!r}])\n"
        "time.sleep(1)\nprint('started')"
    )
    try:
        runs = run_pages([PageJob("p", [BlockJob(code, "docs/p.md", 1, 30)])], REPO)["p"]
        time.sleep(0.5)
        assert _marked(marker) == []
        assert runs[0].status == "ok" and runs[0].leftovers, runs[0]
    finally:
        _kill_marked(marker)


def test_where_no_group_can_be_made_nothing_is_ended_and_pages_run():
    assert cgroups.end(None) == []
    runs = run_pages([PageJob("p", [BlockJob("print('ran')", "docs/p.md", 1, 30)])], REPO)["p"]
    assert runs[0].status == "ok" and runs[0].output == "ran\n"
