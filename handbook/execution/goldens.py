"""Re-recording every block's output, or changing nothing (`python -m handbook goldens`).

Blocks run as in the build (cache included). If any block fails to run, no
recording is written or removed. Otherwise every executed block's output is
recorded (and every figure, beside it), recordings without a block are removed, and the changed files are listed.
On a Python other than the one the recordings are made with, only its overlay
changes: an output recorded where it differs from the shared one, removed where
it no longer does.
The release's recordings are changed on a copy swapped in whole: killed at any
moment, this leaves them as they were or fully updated.
"""

from __future__ import annotations

import sys
from datetime import date
from pathlib import Path

from handbook import switches
from handbook.environment import RECORDED_PLATFORM, RECORDED_PYTHON, this_platform
from handbook.execution.failures import failure_report
from handbook.execution.pipeline import execute
from handbook.execution.recordings import Recordings, staged
from handbook.execution.status import Status
from handbook.log_text import escaped
from handbook.tree_files import DOCS_DIR


def record(
    root: Path,
    docs_dir: str = DOCS_DIR,
    pages: set[str] | None = None,
    gpu_only: bool = False,
    anchors: dict[str, str] | None = None,
    settings: switches.Settings | None = None,
) -> int:
    """Record every block of `pages` (all by default); `anchors`, every source link's lines, are recorded too."""
    settings = settings or switches.read()
    site = execute(root, docs_dir, only=pages, settings=settings)
    if gpu_only and not site.environment.has_cuda:
        print("no CUDA device here: GPU-only blocks cannot be recorded on this machine", file=sys.stderr)
        return 1
    broken = [r for r in site.all_results() if not r.status.recordable and not r.status.shows_recording]
    if broken:
        site.stale = []
        print(escaped(failure_report(site)), file=sys.stderr)
        print("\nno recording was changed: fix the failing blocks first", file=sys.stderr)
        return 1
    env = site.environment
    recordings = Recordings(root, env.release, python=env.python, platform=this_platform())
    if recordings.overlay is not None or recordings.platform_overlay is not None:
        unrecorded = [r for r in site.all_results() if r.status == Status.UNRECORDED]
        if unrecorded or site.compared_with:
            print(escaped(failure_report(site)), file=sys.stderr)
            print(
                f"\nno recording was changed: Python {env.python_minor} on {recordings.platform} records only where "
                f"it differs from Python {RECORDED_PYTHON} on {RECORDED_PLATFORM}, which has not recorded these "
                f"blocks; run `make goldens TORCH={env.release}` there first",
                file=sys.stderr,
            )
            return 1
    changed = []
    with staged(recordings, kill_at=settings.goldens_kill_at) as stage:
        for result in site.all_results():
            if not result.status.recordable or (gpu_only and result.block.device != "cuda"):
                continue
            provenance = None
            if result.block.device == "cuda" and env.has_cuda:
                provenance = {"device": env.gpu_name, "torch": env.torch, "recorded": date.today().isoformat()}
            before = stage.path(result.block)
            written = stage.write(result.block, result.output, provenance)
            if not result.status.passes or not before.exists():  # drift, unrecorded, or an overlay now redundant
                changed.append(stage.relative(written) if written else f"{stage.relative(before)} (removed)")
            if result.block.figure and result.figure and (drawn := stage.write_figure(result.block, result.figure)):
                changed.append(stage.relative(drawn))
        for path in [] if gpu_only or not site.stale else stage.stale(site.pages):
            stage.remove(path)
            changed.append(f"{stage.relative(path)} (removed)")
        if anchors is not None and not gpu_only:
            stage.write_anchors(anchors)
        stage.mark_overlay(env.python)
        stage.mark_platform()
    python = f", Python {env.python_minor}" + (
        f" (recorded where it differs from Python {RECORDED_PYTHON})" if recordings.overlay else ""
    )
    print(f"torch {env.torch}{python}: {len(site.all_results())} blocks, {len(changed)} recording(s) changed")
    for path in changed:
        print(f"  {path}")
    return 0
