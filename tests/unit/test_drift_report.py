"""`make new-release`: a release without recordings gets a drift report against its nearest, and nothing is recorded."""

from __future__ import annotations

from handbook.execution.recordings import Recordings

# Synthetic data: recordings in a temporary tree, and a made-up Environment


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
