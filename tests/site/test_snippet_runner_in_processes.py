"""The snippet server runs a file as `python file.py` would, and leaves nothing running behind it:
not after a timeout, not when the test worker that owns it dies."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import psutil
import pytest
from snippet_runner import STOP_SECONDS, SnippetRunner, needs_fresh_interpreter

TESTS = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def runner():
    runner = SnippetRunner(dict(os.environ))
    yield runner
    runner.close()


def forked_file(directory: Path, body: str) -> Path:
    """A file the runner forks (torch is the first thing it imports) with `body` after that import."""
    file = directory / "snippet.py"
    file.write_text("import torch\n" + textwrap.dedent(body))
    assert needs_fresh_interpreter(file) is None
    return file


def gone(pid: int) -> bool:
    """Whether `pid` has exited (a zombie not yet reaped by whoever adopted it counts as exited)."""
    try:
        return psutil.Process(pid).status() in {psutil.STATUS_ZOMBIE, psutil.STATUS_DEAD}
    except psutil.NoSuchProcess:
        return True


def wait_until_gone(pids: list[int], seconds: float) -> list[int]:
    """The pids still running after up to `seconds`."""
    deadline = time.monotonic() + seconds
    while (alive := [pid for pid in pids if not gone(pid)]) and time.monotonic() < deadline:
        time.sleep(0.1)
    return alive


def test_the_file_runs_as_main_in_its_directory_and_cwd(runner, tmp_path):
    file = forked_file(
        tmp_path,
        """
        import os, sys
        print(__name__, sys.argv == [__file__], sys.path[0] == os.path.dirname(__file__), os.getcwd())
        print("to stderr", file=sys.stderr)
        """,
    )
    cwd = tmp_path / "cwd"
    cwd.mkdir()
    result = runner.run(file, cwd=cwd, timeout=120)
    assert (result.returncode, result.stdout, result.stderr) == (0, f"__main__ True True {cwd}\n", "to stderr\n")


def test_exit_status_and_traceback_are_those_of_a_fresh_interpreter(runner, tmp_path):
    assert runner.run(forked_file(tmp_path, "raise SystemExit(3)\n"), cwd=tmp_path, timeout=120).returncode == 3
    file = forked_file(tmp_path, "def fail():\n    return undefined_name\nfail()\n")
    fresh = subprocess.run([sys.executable, str(file)], cwd=tmp_path, capture_output=True, text=True, timeout=120)
    forked = runner.run(file, cwd=tmp_path, timeout=120)
    assert (forked.returncode, forked.stderr) == (fresh.returncode, fresh.stderr) == (1, fresh.stderr)
    assert "NameError: name 'undefined_name' is not defined" in forked.stderr
    assert "runpy" not in forked.stderr and "snippet_runner" not in forked.stderr


def test_a_timeout_ends_the_file_and_what_it_started(runner, tmp_path):
    pids = tmp_path / "pids"
    file = forked_file(
        tmp_path,
        f"""
        import os, subprocess, time
        sleeper = subprocess.Popen(["sleep", "600"])
        open({str(pids)!r}, "w").write(f"{{os.getpid()}} {{sleeper.pid}}")
        time.sleep(600)
        """,
    )
    with pytest.raises(subprocess.TimeoutExpired):
        runner.run(file, cwd=tmp_path, timeout=5)
    assert wait_until_gone([int(pid) for pid in pids.read_text().split()], STOP_SECONDS) == []
    # The server serves the next file as before.
    assert runner.run(forked_file(tmp_path, "print('next')\n"), cwd=tmp_path, timeout=120).stdout == "next\n"


def test_what_a_file_leaves_running_ends_with_it(runner, tmp_path):
    # A fresh run's background process would outlive the test; the file's process group ends with it.
    file = forked_file(tmp_path, "import subprocess\nprint(subprocess.Popen(['sleep', '600']).pid)\n")
    result = runner.run(file, cwd=tmp_path, timeout=120)
    assert result.returncode == 0
    assert wait_until_gone([int(result.stdout)], STOP_SECONDS) == []


def test_when_its_worker_dies_the_server_ends_the_running_file_and_exits(tmp_path):
    pids = tmp_path / "pids"
    file = forked_file(
        tmp_path,
        f"""
        import os, time
        open({str(pids)!r}, "w").write(str(os.getpid()))
        time.sleep(600)
        """,
    )
    # A stand-in for a pytest worker: it starts a server, runs the file, and is killed mid-run.
    worker = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import os; from pathlib import Path; from snippet_runner import SnippetRunner; "
            "runner = SnippetRunner(dict(os.environ)); print(runner.server.pid, flush=True); "
            f"runner.run(Path({str(file)!r}), cwd=Path({str(tmp_path)!r}), timeout=600)",
        ],
        env={**os.environ, "PYTHONPATH": str(TESTS)},
        stdout=subprocess.PIPE,
        text=True,
    )
    server = int(worker.stdout.readline())
    deadline = time.monotonic() + 120
    while not pids.exists() or not pids.read_text():
        assert time.monotonic() < deadline and worker.poll() is None, "the file never started"
        time.sleep(0.1)
    worker.send_signal(signal.SIGKILL)
    worker.wait()
    assert wait_until_gone([server, int(pids.read_text())], STOP_SECONDS) == []
