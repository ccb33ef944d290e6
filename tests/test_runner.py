"""The runner in-process: one fork server for the whole module."""

from __future__ import annotations

from pathlib import Path

import pytest

from handbook.runner import BlockJob, PageJob, block_timeout, run_pages

REPO = Path(__file__).resolve().parent.parent


def run(*codes: str, timeout: float = 30) -> list:
    return run_pages([PageJob("p", [BlockJob(code, "docs/p.md", 1, timeout) for code in codes])], REPO)["p"]


def test_blocks_share_one_namespace_and_capture_every_fd_write():
    runs = run("x = 2\nprint('py', x)", "import os, ctypes\nos.write(1, b'fd1\\n')\nos.write(2, b'fd2\\n')\nctypes.CDLL(None).printf(b'from C\\n')")
    assert [r.status for r in runs] == ["ok", "ok"]
    assert runs[0].output == "py 2\n"
    assert runs[1].output.split("\n")[:3] == ["fd1", "fd2", "from C"]


def test_warnings_are_shown_once_per_place():
    output = run("import warnings\nfor _ in range(3):\n    warnings.warn('careful')")[0].output
    assert output.count("UserWarning: careful") == 1


def test_torch_starts_fresh_with_one_thread_and_seed_zero():
    output = run("import torch\nprint(torch.get_num_threads(), torch.initial_seed())")[0].output
    assert output == "1 0\n"


@pytest.mark.parametrize(
    "code, status, message",
    [
        ("raise KeyError('k')", "raised", "KeyError: 'k'"),
        ("raise SystemExit(2)", "exit", "sys.exit(2)"),
        ("import os\nos._exit(5)", "exited", "exited with code 5"),
        ("import ctypes\nctypes.string_at(0)", "crashed", "SIGSEGV"),
        ("import time\ntime.sleep(30)", "timeout", "timeout of 1 s"),
    ],
)
def test_failures_are_told_apart_and_stop_the_page(code, status, message):
    runs = run("print('first')", code + "\n", "print('never')", timeout=1)
    assert runs[0].status == "ok"
    assert runs[1].status == status and message in runs[1].error
    assert runs[2].status == "not-run"


def test_output_before_a_crash_is_kept():
    runs = run("print('before', flush=True)\nimport ctypes\nctypes.string_at(0)")
    assert runs[0].status == "crashed" and runs[0].output == "before\n"


def test_pages_run_in_parallel_and_results_keep_their_page():
    jobs = [PageJob(name, [BlockJob(f"import time; time.sleep(1); print('{name}')", "docs/p.md", 1, 30)]) for name in "abcd"]
    results = run_pages(jobs, REPO, workers=2)
    assert {page: runs[0].output for page, runs in results.items()} == {n: f"{n}\n" for n in "abcd"}


def test_timeout_comes_from_the_block_then_the_environment(monkeypatch):
    monkeypatch.setenv("DOCS_BLOCK_TIMEOUT", "7")
    assert block_timeout({}) == 7
    assert block_timeout({"timeout": "300"}) == 300
    monkeypatch.delenv("DOCS_BLOCK_TIMEOUT")
    assert block_timeout({}) == 120
