"""Reporting: failure messages that name the place, and `execution-report.json`."""

from __future__ import annotations

import json
import textwrap
from datetime import datetime, timezone
from pathlib import Path

from handbook.execution import BlockResult, SiteRun

WHAT_HAPPENED = {
    "raised": "the block raised an exception",
    "exit": "the block called sys.exit",
    "exited": "the page process exited during the block",
    "crashed": "the page process crashed during the block",
    "timeout": "the block ran past its timeout",
    "output": "the block printed too much",
    "memory": "the page ran past its memory limit",
    "not-run": "the block did not run because an earlier block of its page failed",
    "drift": "the output differs from its recording",
    "unrecorded": "the block has no recording",
    "mispredicted": "the prediction disagrees with what was recorded on a GPU",
}


def place(result: BlockResult) -> str:
    block = result.block
    return f"docs/{block.page}, block {block.index} ({block.id}), {block.origin}"


def describe(result: BlockResult) -> str:
    lines = [f"{place(result)}: {WHAT_HAPPENED.get(result.status, result.status)}"]
    if result.error:
        lines.append(textwrap.indent(result.error, "    "))
    if result.output and result.status not in {"drift", "not-run", "unrecorded", "mispredicted"}:
        lines.append("    output before the failure:")
        lines.append(textwrap.indent(result.output[-2000:], "    | "))
    return "\n".join(lines)


def failure_report(site: SiteRun) -> str:
    failures = site.failures()
    # A block skipped after an earlier failure says nothing new; it is counted, not shown.
    shown = [f for f in failures if f.status != "not-run"]
    parts = [describe(result) for result in shown]
    skipped = len(failures) - len(shown)
    if skipped:
        parts.append(f"({skipped} later block(s) of the failing pages did not run)")
    for path in site.stale:
        parts.append(f"{path}: a recording whose block is gone; run `make goldens` to remove it, or restore the block")
    count = len(shown) + len(site.stale)
    header = f"{count} example problem(s):"
    if site.compared_with:
        release = site.environment["torch"].split("+")[0]
        header = (
            f"torch {release} has no recordings yet; its outputs were compared with the nearest recorded release, "
            f"torch {site.compared_with}: {len(shown)} of {len(site.all_results())} blocks differ. "
            f"Review the differences below, then record them with `make goldens TORCH={release}`."
        )
    return header + "\n\n" + "\n\n".join(parts)


def killed_processes(site: SiteRun) -> list[str]:
    """One line per process that a block started and left running when its page ended, which was killed."""
    return [f"{place(result)}: killed a process it left running: {command}" for result in site.all_results() for command in result.leftovers]


def report_data(site: SiteRun) -> dict:
    return {
        "torch": site.environment["torch"],
        "git_version": site.environment["git_version"],
        "python": site.environment["python"],
        "device": site.environment["device"],
        "generated": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "seconds": round(site.seconds, 3),
        "blocks": [
            {
                "page": r.block.page,
                "id": r.block.id,
                "source": r.block.origin,
                "status": r.status,
                "seconds": round(r.seconds, 4),
                **({"gpu": {"device": r.gpu.device, "torch": r.gpu.torch, "recorded": r.gpu.date}} if r.gpu else {}),
            }
            for r in site.all_results()
        ],
        "stale_recordings": site.stale,
        "killed_processes": [
            {"page": r.block.page, "id": r.block.id, "source": r.block.origin, "command": command}
            for r in site.all_results()
            for command in r.leftovers
        ],
    }


def write_report(site: SiteRun, path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(report_data(site), indent=2) + "\n", encoding="utf-8")
