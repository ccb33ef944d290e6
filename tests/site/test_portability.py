"""`make portability`: five ways to build on this machine, and the CI jobs for the platforms it cannot be."""

from __future__ import annotations

import importlib.util
import os
import re
import time
from pathlib import Path

import psutil
import yaml
from conftest import PINNED, SUPPORTED

REPO = Path(__file__).resolve().parents[2]
spec = importlib.util.spec_from_file_location("portability", REPO / "tools" / "portability.py")
portability = importlib.util.module_from_spec(spec)
spec.loader.exec_module(portability)


def test_the_five_ways():
    ways = {name: (env, prefix, busy) for name, env, prefix, busy in portability.ways()}
    assert ways["plain"] == ({}, [], False)
    assert ways["ATEN_CPU_CAPABILITY=default"][0] == {"ATEN_CPU_CAPABILITY": "default"}
    assert ways["ATEN_CPU_CAPABILITY=avx2"][0] == {"ATEN_CPU_CAPABILITY": "avx2"}
    assert ways["every core busy"][2] is True
    assert ways["one core (taskset -c)"][1][:2] == ["taskset", "-c"]


def test_busy_cores_spin_one_process_per_core_and_stop():
    me = psutil.Process()
    with portability.busy_cores():
        spinners = [p for p in me.children() if portability.BUSY_LOOP in " ".join(p.cmdline())]
        assert len(spinners) == os.cpu_count()
        # Spinning: each gathers CPU time. Waited for, not timed: on a loaded machine a spinner may
        # get a small share of a core for a while (the test failed at load 17 with a 1 s wait).
        deadline = time.monotonic() + 120
        while not all(p.cpu_times().user > 0.1 for p in spinners) and time.monotonic() < deadline:
            time.sleep(0.2)
        assert all(p.cpu_times().user > 0.1 for p in spinners)
    assert not [p for p in spinners if p.is_running() and p.status() != psutil.STATUS_ZOMBIE]


def test_make_and_the_workflow_run_it_and_build_on_the_other_platforms():
    assert re.search(
        r"^portability: \$\(INSTALLED\).*\n\t\$\(PYTHON\) tools/portability\.py \$\(addprefix --page ,\$\(PAGES\)\)$",
        (REPO / "Makefile").read_text(),
        re.M,
    )
    jobs = yaml.safe_load((REPO / ".github/workflows/docs.yml").read_text())["jobs"]
    assert jobs["portability"]["strategy"]["matrix"]["release"] == [PINNED, SUPPORTED[-1]]  # the pinned and the latest
    assert any("make portability" in step.get("run", "") for step in jobs["portability"]["steps"])
    assert set(jobs["platforms"]["strategy"]["matrix"]["runner"]) == {"ubuntu-24.04-arm", "macos-14"}
    assert any("make build" in step.get("run", "") for step in jobs["platforms"]["steps"])


def test_one_page_alone_is_executed_and_a_drifted_block_is_named(project):
    project.write(
        "docs/demo.md",
        """
        # Demo

        ```python exec="on" id="steady"
        print("steady")
        ```

        ```python exec="on" id="capability"
        import os
        print("capability:", os.environ.get("ATEN_CPU_CAPABILITY", "as the CPU allows"))
        ```
        """,
    )
    assert project.goldens().returncode == 0
    one_way = ["tools/portability.py", "--root", str(project.root), "--execute-only", "demo.md"]
    passing = project.run(str(REPO / one_way[0]), *one_way[1:])
    assert passing.returncode == 0, passing.stdout + passing.stderr
    assert "2 blocks of 1 page(s), 0 failed" in passing.stdout
    drifted = project.run(str(REPO / one_way[0]), *one_way[1:], env={"ATEN_CPU_CAPABILITY": "default"})
    assert drifted.returncode == 1, drifted.stdout + drifted.stderr
    assert "FAILED  docs/demo.md, block capability (docs/demo.md:" in drifted.stdout
    assert "2 blocks of 1 page(s), 1 failed" in drifted.stdout
