"""`python -m handbook.goldens`: re-record every block's output, or change nothing.

Blocks run as in the build (cache included). If any block fails to run, no
recording is written or removed. Otherwise every executed block's output is
recorded, recordings without a block are removed, and the changed files are listed.
The release's recordings are changed on a copy swapped in whole: killed at any
moment, this leaves them as they were or fully updated.
"""

from __future__ import annotations

import argparse
import sys
from datetime import date
from pathlib import Path

from handbook.execution import execute, has_cuda
from handbook.environment import release_of
from handbook.recordings import Recordings, staged
from handbook.report import failure_report
from handbook.source_links import source_anchors

RECORDABLE = {"ok", "cached", "drift", "unrecorded"}


def record(root: Path, docs_dir: str = "docs", pages: set[str] | None = None, gpu_only: bool = False) -> int:
    site = execute(root, docs_dir, only=pages)
    if gpu_only and not has_cuda(site.environment):
        print("no CUDA device here: GPU-only blocks cannot be recorded on this machine", file=sys.stderr)
        return 1
    broken = [r for r in site.all_results() if r.status not in RECORDABLE and r.status not in {"gpu-recorded", "gpu-missing"}]
    if broken:
        site.stale = []
        print(failure_report(site), file=sys.stderr)
        print("\nno recording was changed: fix the failing blocks first", file=sys.stderr)
        return 1
    recordings = Recordings(root, release_of(site.environment["torch"]))
    anchors = None if gpu_only else source_anchors(root, docs_dir).anchors  # they cost no execution: every page's
    changed = []
    with staged(recordings) as stage:
        for result in site.all_results():
            if result.status not in RECORDABLE or (gpu_only and result.block.device != "cuda"):
                continue
            provenance = None
            if result.block.device == "cuda" and has_cuda(site.environment):
                device = site.environment["device"].removeprefix("cuda: ")
                provenance = {"device": device, "torch": site.environment["torch"], "recorded": date.today().isoformat()}
            if result.status in {"drift", "unrecorded"}:
                changed.append(recordings.relative(recordings.path(result.block)))
            stage.write(result.block, result.output, provenance)
        for path in [] if gpu_only or not site.stale else stage.stale(site.pages):
            stage.remove(path)
            changed.append(f"{stage.relative(path)} (removed)")
        if anchors is not None:
            stage.write_anchors(anchors)
    print(f"torch {site.environment['torch']}: {len(site.all_results())} blocks, {len(changed)} recording(s) changed")
    for path in changed:
        print(f"  {path}")
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--root", default=".", type=Path)
    parser.add_argument("--docs-dir", default="docs")
    parser.add_argument("--page", action="append", help="record only this page (path under docs/); may repeat")
    parser.add_argument("--gpu-only", action="store_true", help="record only the GPU-only blocks, with device, torch and date (needs CUDA)")
    args = parser.parse_args()
    return record(args.root.resolve(), args.docs_dir, set(args.page) if args.page else None, args.gpu_only)


if __name__ == "__main__":
    sys.exit(main())
