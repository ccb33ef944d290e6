"""Failure messages: what happened to a block, and where (page, block, snippet `file:line`)."""

from __future__ import annotations

import textwrap

from handbook.environment import RECORDED_PLATFORM, RECORDED_PYTHON
from handbook.execution.results import BlockResult, SiteRun
from handbook.execution.status import Status
from handbook.log_text import escaped


def place(result: BlockResult) -> str:
    block = result.block
    return f"{block.page_file}, block {block.index} ({block.id}), {block.origin}"


def failure_message(result: BlockResult) -> str:
    """What happened to one block, where, and the output it printed before failing."""
    lines = [f"{place(result)}: {result.status.meaning}"]
    if result.error:
        lines.append(textwrap.indent(result.error, "    "))
    if result.ran_again and result.status.may_be_noise:
        lines.append(
            "    (its page ran a second time in this build, fresh, to rule out a stale execution cache entry or a "
            "noisy measurement, and this block failed again)"
        )

    if result.output and result.status not in {
        Status.DRIFT,
        Status.NOT_RUN,
        Status.UNRECORDED,
        Status.MISPREDICTED,
        Status.CLAIM,
    }:
        lines.append("    output before the failure:")
        lines.append(textwrap.indent(result.output[-2000:], "    | "))
    return escaped("\n".join(lines))  # a page's output and error, in the build's log


def failure_report(site: SiteRun) -> str:
    """Every failing block and stale recording of a run, in page order."""
    failures = site.failures()
    # A block skipped after an earlier failure says nothing new; it is counted, not shown.
    shown = [f for f in failures if f.status != Status.NOT_RUN]
    parts = [failure_message(result) for result in shown]
    skipped = len(failures) - len(shown)
    if skipped:
        parts.append(f"({skipped} later block(s) of the failing pages did not run)")
    for path in site.stale:
        parts.append(f"{path}: a recording whose block is gone; run `make goldens` to remove it, or restore the block")
    count = len(shown) + len(site.stale)
    header = f"{count} example problem(s):"
    if site.compared_with:
        release = site.environment.release
        header = (
            f"torch {release} has no recordings yet; its outputs were compared with the nearest recorded release, "
            f"torch {site.compared_with}: {len(shown)} of {len(site.all_results())} blocks differ. "
            f"Review the differences below, then record them with `make goldens TORCH={release}`."
        )
    env = site.environment
    if not site.python_recorded and any(f.status == Status.DRIFT for f in shown):
        header += (
            f"\n(torch {env.release} has no outputs recorded for Python {env.python_minor}; they were compared with "
            f"Python {RECORDED_PYTHON}'s. Where this Python prints differently, review and record it with "
            f"`make goldens TORCH={env.release} PY={env.python_minor}`.)"
        )
    if not site.platform_recorded and any(f.status == Status.DRIFT for f in shown):
        header += "\n(" + platform_note(site) + ")"
    return header + "\n\n" + "\n\n".join(parts)


def platform_note(site: SiteRun) -> str:
    """One line for a build on a platform with no recordings of its own."""
    return (
        f"platform {site.platform} has no outputs recorded for torch {site.environment.release}: they are checked "
        f"against {RECORDED_PLATFORM}'s, and a block that prints differently here is drift; where it genuinely "
        f"does, `make goldens` on this platform records it in recordings/torch-{site.environment.release}/"
        f"platform-{site.platform}/"
    )


def killed_processes(site: SiteRun) -> list[str]:
    """One line per process that a block started and left running when its page ended, which was killed."""
    return [
        escaped(f"{place(result)}: killed a process it left running: {command}")
        for result in site.all_results()
        for command in result.leftovers
    ]
