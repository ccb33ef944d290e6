"""`execution-report.json`: every block's status, source and time, for machines."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

from handbook.environment import RECORDED_PYTHON
from handbook.execution.pipeline import SiteRun


def report_data(site: SiteRun, tree: str = "") -> dict:
    """`tree`: the digest of the tree the site was built from (`tree_guard.tree_digest`)."""
    return {
        **site.environment.as_dict(),
        "tree": tree,
        "recordings_python": RECORDED_PYTHON,  # where this Python prints differently, a block names its own
        "generated": datetime.now(UTC).isoformat(timespec="seconds"),
        "seconds": round(site.seconds, 3),
        "blocks": [
            {
                "page": r.block.page,
                "id": r.block.id,
                "source": r.block.origin,
                "status": r.status.value,
                "recording": r.recording,
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


def write_report(site: SiteRun, path: Path, tree: str = "") -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(report_data(site, tree), indent=2) + "\n", encoding="utf-8")
