"""Processes a page leaves running are killed when the page ends, and reported; in real builds."""

from __future__ import annotations

import json
import random
import time
from pathlib import Path

import psutil
import pytest
from leftovers import run_page_leaving

from handbook.execution.processes import descendants, end_descendants

REPO = Path(__file__).resolve().parents[2]

PAGE = """
# Demo

## Processes

See [TensorImpl](pytorch:c10/core/TensorImpl.h#TensorImpl).

```python exec="on"
import subprocess
child = subprocess.Popen(["sleep", "{child}"])
print("started a child")
```

```python exec="on"
import subprocess, time
# setsid: a new session and process group, out of the page's; & in the shell: a double fork
subprocess.run(["setsid", "sh", "-c", "sleep {detached} & exit 0"])
time.sleep(0.2)
print("started a detached grandchild")
{ending}
```
"""

ENDINGS = {
    "ends": "",
    "times out": "time.sleep(60)",
    "crashes": "import ctypes; ctypes.string_at(0)",
}


def running(duration: str) -> list[psutil.Process]:
    """Live (not zombie) `sleep <duration>` processes: a duration no other test uses."""
    found = []
    for process in psutil.process_iter(["cmdline", "status"]):
        if process.info["cmdline"] == ["sleep", duration] and process.info["status"] != psutil.STATUS_ZOMBIE:
            found.append(process)
    return found


@pytest.fixture
def durations():
    """Sleep durations unique to this test, so that the processes found are the ones it started;
    any still running at the end are killed."""
    chosen = [f"{random.randint(10_000, 99_999)}.{i}" for i in range(2)]
    yield chosen
    for duration in chosen:
        for process in running(duration):
            process.kill()


@pytest.mark.parametrize("ending", ENDINGS)
def test_processes_a_page_left_are_killed_and_named_in_the_log_and_report(project, durations, ending):
    child, detached = durations
    project.write("docs/demo.md", PAGE.format(child=child, detached=detached, ending=ENDINGS[ending]))
    if ending == "ends":
        assert project.goldens().returncode == 0
    result = project.build(DOCS_BLOCK_TIMEOUT="5", HANDBOOK_CACHE="0")
    assert running(child) == [] and running(detached) == []
    assert (
        f"docs/demo.md, block 1 (block-1), docs/demo.md:8: killed a process it left running: sleep {child}"
        in result.stderr
    )
    assert (
        f"docs/demo.md, block 2 (block-2), docs/demo.md:14: killed a process it left running: sleep {detached}"
        in result.stderr
    )
    if ending == "ends":
        assert result.returncode == 0, result.stderr
        report = json.loads((project.root / "site/execution-report.json").read_text())
        assert {(p["id"], p["source"], p["command"]) for p in report["killed_processes"]} == {
            ("block-1", "docs/demo.md:8", f"sleep {child}"),
            ("block-2", "docs/demo.md:14", f"sleep {detached}"),
        }


def test_a_page_that_leaves_nothing_reports_nothing(project):
    project.write(
        "docs/demo.md",
        "# Demo\n\n## Quiet\n\nSee [TensorImpl](pytorch:c10/core/TensorImpl.h#TensorImpl).\n\n```python "
        'exec="on"\nimport subprocess\nsubprocess.run(["true"])\n```\n',
    )
    assert project.goldens().returncode == 0
    result = project.build()
    assert result.returncode == 0, result.stderr
    assert "killed a process" not in result.stderr
    assert json.loads((project.root / "site/execution-report.json").read_text())["killed_processes"] == []


def test_end_descendants_kills_a_tree_and_names_each_process():
    import subprocess

    duration = f"{random.randint(10_000, 99_999)}.5"
    shell = subprocess.Popen(["sh", "-c", f"sleep {duration} & sleep {duration} & wait"])
    try:
        # Both children forked and exec'd: a child caught between fork and exec is still
        # named `sh -c ...`, and would be killed (and named) as such.
        deadline = time.monotonic() + 30
        while sum(_command(p).startswith("sleep") for p in descendants(shell.pid)) < 2:
            assert time.monotonic() < deadline, "the shell never started its two sleeps"
        killed = end_descendants(shell.pid)
        assert sorted(k.command for k in killed) == [f"sleep {duration}"] * 2
        assert running(duration) == []
    finally:
        shell.kill()
        shell.wait()


def _command(process) -> str:
    try:
        return " ".join(process.cmdline())
    except psutil.Error:
        return ""


# A daemon (its own session) that forks, and its parent exits, every 2 ms: each process lives
# shorter than a kill round.
REFORKING = """
import os, sys, time
os.setsid()
while True:
    time.sleep(0.002)
    if os.fork():
        os._exit(0)
"""


def test_a_process_that_keeps_reforking_is_frozen_killed_and_reported():
    runs, survivors = run_page_leaving(REFORKING)
    assert survivors == []
    assert runs[0].status == "ok" and runs[0].leftovers
