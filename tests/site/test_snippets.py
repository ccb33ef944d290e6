"""Every snippet file is a program of its own: `python snippets/<page>/<file>.py` exits 0."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from snippet_runner import SnippetRunner

REPO = Path(__file__).resolve().parents[2]
SNIPPETS = sorted(p.relative_to(REPO).as_posix() for p in (REPO / "snippets").rglob("*.py"))
TIMEOUT_S = 900


@pytest.fixture(scope="session")
def snippet_runner(extensions_dir):
    """This worker's runner: the environment every snippet runs in, set before its server imports torch."""
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    env.setdefault("TORCHINDUCTOR_CACHE_DIR", str(REPO / ".cache/handbook/inductor/native"))
    env["TORCH_EXTENSIONS_DIR"] = str(extensions_dir)
    runner = SnippetRunner(env)
    yield runner
    runner.close()


@pytest.mark.parametrize("snippet", SNIPPETS)
def test_snippet_runs_on_its_own(snippet, tmp_path, snippet_runner):
    result = snippet_runner.run(REPO / snippet, cwd=tmp_path, timeout=TIMEOUT_S)
    assert result.returncode == 0, f"{snippet} exited {result.returncode}:\n{result.stderr[-3000:]}"
