"""What running the handbook produces: one model from a page process's report to the site's verdict.

A `BlockRun` is what a page process reports for one block (and what the execution cache
keeps). A `BlockResult` is that run checked against its recording: the same fields, the
verdict in `status`, `output` and `error`, and where it came from. A `SiteRun` is every
page's results. Only runs are stored (the execution cache, the execute step's record),
in one JSON form read back through the checks below; a verdict is never stored, but made
again from the run and the recordings, so a stored output that was tampered with shows as
a drift, not as a pass.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields

from handbook.environment import Environment, Machine
from handbook.execution.blocks import Block, Page
from handbook.execution.recordings import GpuRecording
from handbook.execution.status import Status


@dataclass
class BlockRun:
    status: Status
    output: str = ""
    error: str = ""
    seconds: float = 0.0
    # What it ran on (`handbook.environment.Machine` as a dict): its measurements were made there.
    machine: dict = field(default_factory=dict)
    # Command lines of the processes this block started that were still running when
    # its page ended, and were killed.
    leftovers: list[str] = field(default_factory=list)
    # The figure the block declared (`figure=` on its fence), sanitised SVG text (`figures.sanitise`).
    figure: str = ""

    @property
    def ran_on(self) -> Machine | None:
        return Machine(**self.machine) if self.machine else None


@dataclass(kw_only=True)
class BlockResult(BlockRun):
    block: Block
    from_cache: bool = False  # its run was reused from an earlier build
    ran_again: bool = False  # its page ran a second time in this build (see `worth_running_again`)
    recording: str = ""  # repository-relative path of its recording
    gpu: GpuRecording | None = None
    predicted: BlockResult | None = None  # the GPU-only block this one predicts (`predicts=`)

    @classmethod
    def of(cls, block: Block, run: BlockRun, **details) -> BlockResult:
        """`run`, not yet checked, as the result of `block`."""
        return cls(**{f.name: getattr(run, f.name) for f in fields(BlockRun)}, block=block, **details)

    @property
    def passed(self) -> bool:
        return self.status.passes

    @property
    def worth_running_again(self) -> bool:
        """A failure that a fresh run may not repeat: a missed claim, or a drift from the cache."""
        return self.status == Status.CLAIM or (self.status == Status.DRIFT and self.from_cache)


@dataclass
class SiteRun:
    environment: Environment
    pages: list[Page]
    results: dict[str, list[BlockResult]] = field(default_factory=dict)
    stale: list[str] = field(default_factory=list)
    compared_with: str | None = None  # a release without recordings is checked against its nearest
    executed_pages: list[str] = field(default_factory=list)
    seconds: float = 0.0
    python_recorded: bool = True  # this Python's outputs were recorded (or it is the recording Python)
    platform: str = ""  # this_platform()
    platform_recorded: bool = True  # this platform's outputs were recorded (or it is the recording platform)
    tree_changed: list[str] = field(default_factory=list)  # under `mkdocs serve`: what changed while pages ran
    refused: list[str] = field(default_factory=list)  # stored runs not believed (`pipeline.stored_runs`), and why

    def page(self, path: str) -> Page:
        return next(page for page in self.pages if page.path == path)

    def all_results(self) -> list[BlockResult]:
        return [result for page in self.pages for result in self.results.get(page.path, [])]

    def failures(self) -> list[BlockResult]:
        return [result for result in self.all_results() if not result.passed]

    @property
    def ok(self) -> bool:
        return not self.failures() and not self.stale and not self.compared_with


class CorruptEntry(TypeError):
    """A stored run or site of the wrong shape: it is recomputed, never used."""


# What each field of a stored run must be.
RUN_FIELD_TYPES = {
    "output": str,
    "error": str,
    "seconds": (int, float),
    "machine": dict,
    "leftovers": list,
    "figure": str,
}


def run_as_json(run: BlockRun) -> dict:
    return {f.name: getattr(run, f.name) for f in fields(BlockRun)}


def run_from_json(entry: object) -> BlockRun:
    """One stored run; CorruptEntry for anything of the wrong shape."""
    known = {f.name for f in fields(BlockRun)}
    if not isinstance(entry, dict) or set(entry) - known or "status" not in entry:
        raise CorruptEntry("corrupt run entry")
    wrong = [name for name, kind in RUN_FIELD_TYPES.items() if name in entry and not isinstance(entry[name], kind)]
    if wrong:
        raise CorruptEntry(f"corrupt run entry: {wrong}")
    try:
        return BlockRun(**{**entry, "status": Status(entry["status"])})
    except ValueError as error:
        raise CorruptEntry(str(error)) from error
