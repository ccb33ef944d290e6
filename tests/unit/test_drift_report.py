"""`make new-release`: a release without recordings gets a drift report against its nearest, and nothing is recorded."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

from handbook.execution.blocks import scan_docs
from handbook.execution.labs import lab_pages
from handbook.execution.measurements import masked
from handbook.execution.recordings import Recordings

# Synthetic data: recordings in a temporary tree, and a made-up Environment

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


def test_a_changed_figure_is_in_the_report_as_its_blocks_drift(tmp_path):
    from handbook.environment import Environment
    from handbook.execution.blocks import Block, Page
    from handbook.execution.pipeline import check
    from handbook.execution.results import BlockRun, SiteRun
    from handbook.execution.status import Status
    from handbook.reports.drift import _outputs_section

    (tmp_path / "docs").mkdir()
    (tmp_path / "docs/ch.md").write_text("# Chapter\n")
    block = Block("ch.md", 1, "bars", "draw()", "docs/ch.md", 3, 2, "Bars", {"figure": "b.svg", "alt": "Bars, two."})
    page = tmp_path / "recordings/torch-2.13.0/ch"
    page.mkdir(parents=True)
    (page / "bars.txt").write_text("1\n")
    (page / "bars.svg").write_text("<svg>\n<rect/>\n</svg>\n")
    result = check(
        block, BlockRun(Status.OK, "1", figure="<svg>\n<circle/>\n</svg>\n"), Recordings(tmp_path, "2.13.0"), False
    )
    site = SiteRun(Environment("2.13.0+cpu", "abc", "3.11.9", "cpu"), [Page("ch.md", (block,))])
    site.results["ch.md"] = [result]
    report = "\n".join(_outputs_section(site, tmp_path, "docs"))
    assert "#### Bars: block 1 (`bars`, `docs/ch.md:3`, draws `b.svg`)" in report
    assert "the figure 'b.svg' changed" in report and "+<circle/>" in report
