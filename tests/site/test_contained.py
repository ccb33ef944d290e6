"""tools/contained.py: a command that leaves a process running fails, and the process is named and ended."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import psutil

REPO = Path(__file__).resolve().parents[2]
CONTAINED = [sys.executable, str(REPO / "tools" / "contained.py")]


def contained(*command: str) -> subprocess.CompletedProcess:
    return subprocess.run([*CONTAINED, *command], capture_output=True, text=True, timeout=120)


def test_a_command_that_leaves_nothing_keeps_its_status():
    assert contained("true").returncode == 0
    assert contained("sh", "-c", "exit 3").returncode == 3


def test_a_process_left_running_fails_the_run_and_is_named_and_ended():
    # Left the way a daemon leaves: its own session, its parent gone, so it is no child of anyone here.
    result = contained("sh", "-c", "setsid sh -c 'exec sleep 300 &'; echo started")
    assert result.stdout == "started\n"
    assert result.returncode == 1
    found = re.search(r"^  (\d+) \w+.*: sleep 300$", result.stderr, re.M)
    assert "left 1 process(es) running, now killed" in result.stderr and found, result.stderr
    pid = int(found[1])
    assert not psutil.pid_exists(pid) or psutil.Process(pid).status() == psutil.STATUS_ZOMBIE
