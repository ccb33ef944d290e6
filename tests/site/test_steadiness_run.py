"""`make steadiness` run on a built project: a block that prints the time zone is found varying."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
spec = importlib.util.spec_from_file_location("steadiness", REPO / "tools" / "steadiness.py")
steadiness = importlib.util.module_from_spec(spec)
sys.modules["steadiness"] = steadiness  # its dataclasses look their module up
spec.loader.exec_module(steadiness)


def test_a_block_that_prints_the_time_zone_is_found_varying(project):
    project.write(
        "docs/index.md",
        """
        # Home

        ```python exec="on"
        import os
        print("steady")
        print("time zone:", os.environ.get("TZ"))
        ```
        """,
    )
    command = [sys.executable, str(REPO / "tools" / "steadiness.py"), "--root", str(project.root), "--runs", "2"]
    result = subprocess.run(command, env=project.environment(), capture_output=True, text=True, timeout=600)
    assert result.returncode == 1, result.stdout + result.stderr
    assert "1 varying block(s), 0 failing in every run, of 1" in result.stdout
    assert "VARIES  docs/index.md, block block-1 (docs/index.md:4)" in result.stdout
    assert "-time zone: Asia/Shanghai\n    +time zone: None" in result.stdout
