"""Figures drawn by pages in real runs: the same bytes twice with the handbook's matplotlibrc, and
the font cache built before any page runs."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

from handbook.execution.figures import MATPLOTLIBRC, build_font_cache, sanitise

DRAW = """
import matplotlib.pyplot as plt
fig, ax = plt.subplots()
ax.bar(["a", "b"], [1, 2], label="bars")
ax.annotate("peak", (1, 2), xytext=(0, 1.5), arrowprops={"arrowstyle": "->"})
ax.legend()
fig.savefig("f.svg")
"""


def test_two_runs_draw_the_same_bytes_with_the_handbooks_matplotlibrc(tmp_path):
    """What the pipeline sets for every page (`prepare_page_processes`) is enough: no boilerplate in the block."""
    drawn = []
    for run in ("one", "two"):
        directory = tmp_path / run
        directory.mkdir()
        env = {
            **os.environ,
            "MATPLOTLIBRC": str(MATPLOTLIBRC),
            "MPLBACKEND": "Agg",
            "SOURCE_DATE_EPOCH": "0",
            "MPLCONFIGDIR": str(tmp_path / "mplconfig"),
        }
        subprocess.run([sys.executable, "-c", textwrap.dedent(DRAW)], cwd=directory, env=env, check=True)
        drawn.append(Path(directory / "f.svg").read_bytes())
    assert drawn[0] == drawn[1]
    kept = sanitise(drawn[0])
    assert "<text" in kept and "DejaVu Sans" in kept  # text stays text, in the one font


def test_the_font_cache_is_built_before_pages_run_so_that_no_page_prints_that_it_builds_it(tmp_path):
    build_font_cache(tmp_path / "mplconfig")
    assert list((tmp_path / "mplconfig").glob("fontlist-*.json"))
    env = {**os.environ, "MPLCONFIGDIR": str(tmp_path / "mplconfig"), "MPLBACKEND": "Agg"}
    drawn = subprocess.run([sys.executable, "-c", "import matplotlib.pyplot"], env=env, capture_output=True, text=True)
    assert drawn.returncode == 0 and drawn.stderr == ""
