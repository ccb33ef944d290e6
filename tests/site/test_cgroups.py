"""A cgroup per page, where the machine allows one: what escapes every tree and process group is ended too."""

from __future__ import annotations

import signal
import subprocess
import sys
from pathlib import Path

import pytest
from leftovers import run_page_leaving

from handbook.execution import cgroups
from handbook.execution.runner import BlockJob, PageJob, run_pages

REPO = Path(__file__).resolve().parents[2]

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


# Where the build may make none (no cgroup v2, or not as root), pages run without (see cgroups.py).
CGROUPS = pytest.mark.skipif(not _can_make_groups(), reason="no writable cgroup v2 hierarchy here")


@CGROUPS
def test_a_group_is_made_joined_killed_at_once_and_removed():
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


@CGROUPS
def test_a_daemon_that_takes_a_new_session_at_every_fork_ends_with_its_page():
    runs, survivors = run_page_leaving(NEW_SESSION_EACH_FORK)
    assert survivors == []
    assert runs[0].status == "ok" and runs[0].leftovers, runs[0]


def test_where_no_group_can_be_made_nothing_is_ended_and_pages_run():
    assert cgroups.end(None) == []
    runs = run_pages([PageJob("p", [BlockJob("print('ran')", "docs/p.md", 1, 30)])], REPO)["p"]
    assert runs[0].status == "ok" and runs[0].output == "ran\n"


@CGROUPS
def test_the_group_of_a_page_whose_build_was_killed_is_ended_by_the_next_build():
    """A page's group outlives a build killed with SIGKILL; the next build kills what it holds and removes it."""
    left = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    gone = subprocess.Popen(["true"])
    gone.wait()  # a page that is gone: its pid names the stale group
    stale = cgroups.page_group(gone.pid)
    try:
        stale.mkdir()
        (stale / "cgroup.procs").write_text(f"{left.pid}\n")
        cgroups.remove_stale()
        assert left.wait(timeout=10) == -signal.SIGKILL
        assert not stale.exists()
    finally:
        left.kill()
        if stale.exists():
            cgroups.end(stale)
