"""Running pages: each in its own process, forked from a server that has imported torch.

Pages run in parallel (as many as there are cores); within a page, blocks run in
order in one namespace. The parent watches each block's time, and tells a raise,
a `sys.exit`, an `os._exit`, a crash (a signal) and a timeout apart.
"""

from __future__ import annotations

import contextlib
import functools
import json
import multiprocessing
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections import deque
from dataclasses import dataclass
from multiprocessing.connection import wait
from pathlib import Path

from handbook import page_process

DEFAULT_TIMEOUT = 120.0
OK = "ok"
SKIPPED = "skipped"  # not run here by design (a GPU-only block without a GPU)
SUCCESS = {OK, SKIPPED}


@dataclass
class BlockJob:
    code: str
    file: str  # repository-relative
    line: int
    timeout: float
    run: bool = True


@dataclass
class PageJob:
    page: str
    blocks: list[BlockJob]


@dataclass
class BlockRun:
    status: str  # ok, raised, exit, exited, crashed, timeout, not-run
    output: str = ""
    error: str = ""
    seconds: float = 0.0


@dataclass
class _Running:
    job: PageJob
    process: multiprocessing.process.BaseProcess
    conn: object
    capture_dir: str
    runs: list[BlockRun]
    current: int | None = None
    capture: str | None = None
    started: float = 0.0
    finished: bool = False


def default_timeout() -> float:
    return float(os.environ.get("DOCS_BLOCK_TIMEOUT") or DEFAULT_TIMEOUT)


def block_timeout(options: dict[str, str]) -> float:
    return float(options["timeout"]) if options.get("timeout") else default_timeout()


def _context():
    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload(["handbook.preload"])
    return context


@contextlib.contextmanager
def _main_script_hidden():
    """A page process must not re-run the parent's script (mkdocs, pytest) as multiprocessing would."""
    main = sys.modules["__main__"]
    spec, path = getattr(main, "__spec__", None), getattr(main, "__file__", None)
    main.__spec__ = None
    if path is not None:
        del main.__file__
    try:
        yield
    finally:
        main.__spec__ = spec
        if path is not None:
            main.__file__ = path


def _read(path: str | None) -> str:
    if not path:
        return ""
    try:
        return Path(path).read_bytes().decode("utf-8", errors="replace")
    except OSError:
        return ""


def _describe_exit(code: int | None) -> tuple[str, str]:
    if code is not None and code < 0:
        try:
            name = signal.Signals(-code).name
        except ValueError:
            name = f"signal {-code}"
        return "crashed", f"the page process crashed ({name}) during this block"
    return "exited", f"the page process exited with code {code} during this block (os._exit or a fatal error)"


@functools.cache
def interpreter_search_path() -> tuple[str, ...]:
    """The module search path of this interpreter, without the directory it was launched from.

    `sys.path[0]` is the working directory under `python -m`, the `bin/` directory under a
    console script (`mkdocs`, `mike`, `pytest`), and pytest inserts its own. torch prints module
    paths relative to the first `sys.path` entry holding them (its log lines), so a page
    process must not inherit any of these: it sees what `python -c` sees, minus `''`.
    Entries are resolved because torch resolves the module's path before comparing (a
    symlinked environment would otherwise print absolute paths)."""
    probe = [sys.executable, "-c", "import json, sys; print(json.dumps(sys.path[1:]))"]
    entries = json.loads(subprocess.run(probe, check=True, capture_output=True, text=True).stdout)
    return tuple(os.path.realpath(entry) for entry in entries)


def _start(context, job: PageJob, repo_root: Path) -> _Running:
    capture_dir = tempfile.mkdtemp(prefix="handbook-capture-")
    receiver, sender = context.Pipe(duplex=False)
    blocks = [{"code": b.code, "file": b.file, "line": b.line, "run": b.run} for b in job.blocks]
    arguments = (sender, blocks, capture_dir, str(repo_root), list(interpreter_search_path()))
    process = context.Process(target=page_process.run_page, args=arguments, daemon=True)
    with _main_script_hidden():
        process.start()
    sender.close()
    runs = [BlockRun("not-run" if b.run else SKIPPED) for b in job.blocks]
    return _Running(job, process, receiver, capture_dir, runs)


def _handle(state: _Running, message: tuple) -> None:
    kind = message[0]
    if kind == "start":
        state.current, state.capture, state.started = message[1], message[2], time.perf_counter()
    elif kind == "done":
        _, index, status, error, seconds = message
        state.runs[index] = BlockRun(status, _read(state.capture), error, seconds)
        state.current = None
    elif kind == "finished":
        state.finished = True


def _fail_current(state: _Running, status: str, error: str) -> None:
    if state.current is not None:
        seconds = time.perf_counter() - state.started
        state.runs[state.current] = BlockRun(status, _read(state.capture), error, seconds)
        state.current = None


def _kill(state: _Running) -> None:
    try:
        os.killpg(state.process.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        state.process.kill()


def run_pages(jobs: list[PageJob], repo_root: Path, workers: int | None = None, on_done=None) -> dict[str, list[BlockRun]]:
    """Run every page of `jobs`; return each page's block runs, in block order."""
    context = _context()
    workers = workers or os.cpu_count() or 1
    pending = deque(jobs)
    running: dict[object, _Running] = {}
    results: dict[str, list[BlockRun]] = {}
    while pending or running:
        while pending and len(running) < workers:
            state = _start(context, pending.popleft(), repo_root)
            running[state.conn] = state
        for conn in wait(list(running), timeout=0.1):
            state = running[conn]
            try:
                _handle(state, conn.recv())
                if not state.finished:
                    continue
            except (EOFError, OSError):
                state.process.join()
                status, error = _describe_exit(state.process.exitcode)
                _fail_current(state, status, error)
            _finish(state, running, results, on_done)
        now = time.perf_counter()
        for state in list(running.values()):
            if state.current is None:
                continue
            limit = state.job.blocks[state.current].timeout
            if now - state.started > limit:
                _kill(state)
                _fail_current(state, "timeout", f"the block ran past its timeout of {limit:g} s and was killed")
                _finish(state, running, results, on_done)
    return results


def _finish(state: _Running, running: dict, results: dict, on_done) -> None:
    running.pop(state.conn, None)
    state.conn.close()
    state.process.join(timeout=5)
    if state.process.is_alive():
        _kill(state)
        state.process.join()
    shutil.rmtree(state.capture_dir, ignore_errors=True)
    results[state.job.page] = state.runs
    if on_done:
        on_done(state.job.page, state.runs)


PROBE = """
import json, platform, torch
device = "cpu"
if torch.cuda.is_available():
    device = "cuda: " + torch.cuda.get_device_name(0)
print(json.dumps({"torch": torch.__version__, "git_version": torch.version.git_version,
                  "python": platform.python_version(), "device": device}))
"""


def probe_environment(repo_root: Path) -> dict[str, str]:
    """What the page processes run on: torch version and commit, Python, device."""
    result = run_pages([PageJob("<probe>", [BlockJob(PROBE, "handbook/runner.py", 1, 60.0)])], repo_root, workers=1)
    run = result["<probe>"][0]
    if run.status != OK:
        raise RuntimeError(f"cannot start a page process: {run.error or run.status}\n{run.output}")
    return json.loads(run.output.strip().splitlines()[-1])
