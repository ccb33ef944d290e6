"""`make new-release` on a copy of the tree: a release without recordings gets a drift report against
its nearest, and nothing is recorded."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

from handbook.execution.blocks import scan_docs
from handbook.execution.labs import lab_pages
from handbook.execution.measurements import masked
from handbook.execution.recordings import Recordings

REPO = Path(__file__).resolve().parents[2]


def test_new_release_writes_a_drift_report_and_records_nothing(tree_copy, supported):
    newest, nearest = supported[-1], supported[-2]
    shutil.rmtree(tree_copy.root / "recordings" / f"torch-{newest}")
    (tree_copy.root / "source-index" / f"torch-{newest}.txt").unlink()
    result = tree_copy.make("new-release", f"TORCH={newest}")
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    assert not (tree_copy.root / "recordings" / f"torch-{newest}").exists()
    assert (tree_copy.root / "source-index" / f"torch-{newest}.txt").is_file()
    report = (tree_copy.root / "drift" / f"torch-{newest}.md").read_text()
    before, after = Recordings(REPO, nearest).outputs(), Recordings(REPO, newest).outputs()
    # Measured values are compared masked, as the build compares them.
    differing = sorted(name for name in after if name not in before or masked(before[name]) != masked(after[name]))
    total = sum(len(page.blocks) for page in scan_docs(REPO) + lab_pages(REPO))
    assert f"against the recordings of torch {nearest}: {len(differing)} of {total} blocks differ or fail" in report
    for page, file_name in differing:
        block_id = file_name.removesuffix(".txt")
        assert re.search(rf"^#### .*: block \d+ \(`{re.escape(block_id)}`, ", report, re.MULTILINE), (page, block_id)
    moved = [
        t
        for t, lines in Recordings(REPO, newest).anchors().items()
        if Recordings(REPO, nearest).anchors().get(t) not in (None, lines)
    ]
    assert f"### Moved: {len(moved)} of" in report
    assert "report: " in result.stdout
