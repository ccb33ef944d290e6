"""Every snippet file is a program of its own: `python snippets/<page>/<file>.py` exits 0."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
SNIPPETS = sorted(p.relative_to(REPO).as_posix() for p in (REPO / "snippets").rglob("*.py"))


@pytest.mark.parametrize("snippet", SNIPPETS)
def test_snippet_runs_on_its_own(snippet, tmp_path, extensions_dir):
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    env.setdefault("TORCHINDUCTOR_CACHE_DIR", str(REPO / ".cache/handbook/inductor/native"))
    env["TORCH_EXTENSIONS_DIR"] = str(extensions_dir)
    result = subprocess.run(
        [sys.executable, str(REPO / snippet)], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=900
    )
    assert result.returncode == 0, f"{snippet} exited {result.returncode}:\n{result.stderr[-3000:]}"
