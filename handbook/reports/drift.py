"""The drift report: what the installed torch changes, before anything is recorded (`python -m handbook drift-report`).

Runs every block, compares each output with the recordings of the nearest recorded
release (or the installed release's own, once recorded), resolves every source link
and compares its lines with that release's anchors, and writes one Markdown report a
maintainer reads before `make goldens`: per page and block the diff or the failure,
then the source anchors that are missing (the build fails on them) or moved.
Records nothing. `make new-release TORCH=<version>` runs it.
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from handbook import switches
from handbook.environment import installed_torch
from handbook.execution.labs import SUFFIX, read_lab
from handbook.execution.pipeline import execute
from handbook.execution.recordings import Recordings
from handbook.execution.results import SiteRun
from handbook.execution.status import Status
from handbook.markdown_structure import fenced
from handbook.sources.links import SourceAnchors, moved_anchors, moved_rows, source_anchors
from handbook.sources.source_map import title_of
from handbook.tree_files import DOCS_DIR

MAX_LINE = 400  # characters of one diff line shown; the report is read, not parsed


def _outputs_section(site: SiteRun, root: Path, docs_dir: str) -> list[str]:
    lines = ["## Outputs", ""]
    failures = [r for r in site.failures() if r.status != Status.NOT_RUN]
    if not failures:
        return lines + ["Every block prints what is recorded.", ""]
    for page in site.pages:
        shown = [r for r in failures if r.block.page == page.path]
        if not shown:
            continue
        if page.path.endswith(SUFFIX):  # a lab: its title is its first text cell's
            title = read_lab(root, page.docs_dir, page.path).title or page.path
        else:
            title = title_of((root / page.file).read_text(encoding="utf-8"), page.path)
        lines += [f"### {title} (`{page.file}`)", ""]
        for result in shown:
            block = result.block
            draws = f", draws `{block.figure}`" if block.figure else ""  # its diff says whether the figure changed
            lines += [
                f"#### {block.section or 'Introduction'}: block {block.index} (`{block.id}`, `{block.origin}`{draws})",
                "",
            ]
            shown = [
                line if len(line) <= MAX_LINE else line[:MAX_LINE] + " … (cut)" for line in result.error.splitlines()
            ]
            language = "diff" if result.status == Status.DRIFT else "text"
            lines += [result.status.meaning + ":", "", fenced("\n".join(shown), language), ""]
    return lines


def _anchors_section(found: SourceAnchors, recorded: dict[str, str], baseline: str, release: str) -> list[str]:
    lines = ["## Source links", ""]
    if found.errors:
        lines += (
            [f"### Missing: {len(found.errors)} link(s) the build rejects", ""]
            + [f"- {error}" for error in found.errors]
            + [""]
        )
    moved = moved_anchors(recorded, found.anchors)
    if moved:
        lines += [
            f"### Moved: {len(moved)} of {len(found.anchors)} linked symbols",
            "",
            f"| Symbol | torch {baseline} | torch {release} |",
            "|---|---|---|",
        ]
        lines += moved_rows(recorded, found.anchors) + [""]
    if not found.errors and not moved:
        lines += ["Every source link resolves to the lines recorded for torch " + baseline + ".", ""]
    return lines


def drift_report(root: Path, docs_dir: str = DOCS_DIR, settings: switches.Settings | None = None) -> tuple[str, str]:
    """(the report, a one-line summary). `settings`: the switches, as the command's entry read them."""
    identity = installed_torch()
    site = execute(root, docs_dir, settings=settings)
    baseline = site.compared_with or identity.release
    found = source_anchors(root, docs_dir)
    recorded = Recordings(root, baseline).anchors()
    failing = [r for r in site.failures() if r.status != Status.NOT_RUN]
    moved = len(moved_anchors(recorded, found.anchors))
    summary = (
        f"torch {identity.version} against the recordings of torch {baseline}: {len(failing)} of "
        f"{len(site.all_results())} blocks differ or fail, "
        f"{len(found.errors)} source link(s) missing, {moved} moved"
    )
    header = [
        f"# Drift report: torch {identity.release}",
        "",
        f"torch `{identity.version}` (commit `{identity.git_version}`), Python {site.environment.python}, "
        f"{datetime.now(UTC).date().isoformat()}.",
        "",
        f"{summary}. Nothing was recorded. Review each difference, fix what broke (or version the prose), "
        f"then record with `make goldens TORCH={identity.release}`.",
        "",
    ]
    if site.stale:
        header += ["Recordings whose block is gone: " + ", ".join(f"`{path}`" for path in site.stale), ""]
    report = (
        header + _outputs_section(site, root, docs_dir) + _anchors_section(found, recorded, baseline, identity.release)
    )
    return "\n".join(report) + "\n", summary
