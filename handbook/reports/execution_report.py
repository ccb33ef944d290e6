"""`execution-report.json`: every block's status, source and time, for machines."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

from handbook import switches
from handbook.environment import RECORDED_PYTHON
from handbook.execution.blocks import scan_docs
from handbook.execution.labs import LABS_DIR, lab_pages
from handbook.execution.results import SiteRun
from handbook.execution.runner import block_timeout
from handbook.execution.status import Status
from handbook.execution.tree_guard import tree_digest
from handbook.tree_files import DOCS_DIR, write_atomically


def report_data(site: SiteRun, tree: str = "", settings: switches.Settings | None = None) -> dict:
    """`tree`: the digest of the tree the site was built from (`tree_guard.tree_digest`); `settings`: the
    build's switches (each block's timeout is its own, or theirs)."""
    settings = settings or switches.read()
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
                # A block should use at most half its timeout (`tools/headroom.py`).
                "timeout": block_timeout(r.block.options, settings),
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


def write_report(site: SiteRun, path: Path, tree: str = "", settings: switches.Settings | None = None) -> None:
    write_atomically(path, json.dumps(report_data(site, tree, settings), indent=2) + "\n")


def site_problems(site_dir: Path, root: Path, docs_dir: str = DOCS_DIR) -> list[str]:
    """Why a built site cannot be published as the handbook's: no execution report (the handbook
    plugin did not run: a site generator that ignores MkDocs plugins built it, its blocks neither
    run by the engine nor checked against their recordings), a report of another tree, or blocks
    that did not pass. [] for a site the strict build made from this tree."""
    report = site_dir / "execution-report.json"
    if not report.is_file():
        return [
            f"{site_dir}/execution-report.json is missing: the handbook plugin did not run, so no block was run by "
            "the engine or checked against its recording; build with `make build` (MkDocs with the handbook plugin)"
        ]
    try:
        data = json.loads(report.read_text(encoding="utf-8"))
    except ValueError as error:
        return [f"{report}: not an execution report ({error})"]
    problems = []
    if data.get("tree") != tree_digest(root):
        problems.append(f"{report}: the site was built from another state of the tree; build it again")
    problems += unverified_blocks(data.get("blocks"), root, docs_dir)
    if not data.get("blocks"):
        problems.append(f"{report}: no block was checked")
    return problems


# What a published block may show: a run (in this build, or reused from a store checked against this
# tree's blocks), or, for a GPU-only block without a GPU here, its GPU recording or that there is none.
SHOWN = {Status.OK, Status.CACHED}
SHOWN_GPU = {Status.GPU_RECORDED, Status.GPU_MISSING}


def unverified_blocks(reported: object, root: Path, docs_dir: str) -> list[str]:
    """Every block of the tree (the pages under `docs_dir`, and the labs) whose report does not say it ran,
    or came from a verified store, in this build: a block failed, shown from its recording (a render-only
    build), left out of the report, or one the tree does not have."""
    pages = scan_docs(root, docs_dir) + lab_pages(root)
    blocks = {(b.page, b.id): b for page in pages for b in page.blocks}
    found: dict[tuple[str, str], str] = {}
    problems = []
    for entry in reported if isinstance(reported, list) else []:
        if not isinstance(entry, dict):
            continue
        key, status = (str(entry.get("page")), str(entry.get("id"))), str(entry.get("status"))
        found[key] = status
        block = blocks.get(key)
        if block is None:
            problems.append(f"{key[0]}, block {key[1]}: in the report, not in {docs_dir}/ or {LABS_DIR}/")
            continue
        allowed = SHOWN | (SHOWN_GPU if block.device == "cuda" else set())
        if status not in allowed:
            shown = {Status.RECORDED.value: "recorded (a render-only build: it did not run)"}.get(status, status)
            problems.append(f"{block.page}, block {block.id} ({block.origin}): {shown}")
    problems += [
        f"{page}, block {block_id} ({block.origin}): not in the report"
        for (page, block_id), block in blocks.items()
        if (page, block_id) not in found
    ]
    return problems
