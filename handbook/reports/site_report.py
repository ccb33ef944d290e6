"""The "How this site is built" page: the execution report, rendered for readers."""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass

from handbook.environment import RECORDED_PYTHON
from handbook.execution.page_state import PAGE_STATE
from handbook.execution.results import SiteRun
from handbook.execution.status import Status

PAGE = "how-this-site-is-built.md"


@dataclass(frozen=True)
class Provenance:
    """Where the site's outputs come from, by count: what the banner and this page say, in every mode."""

    blocks: int
    executed: int  # in this build, or in an earlier one with the same code and torch (the execution cache)
    recorded: int  # not executed: a render-only preview shows the recording
    gpu: int  # GPU-only blocks, not run on this machine

    @classmethod
    def of(cls, site: SiteRun) -> Provenance:
        statuses = Counter(r.status for r in site.all_results())
        gpu = statuses[Status.GPU_RECORDED] + statuses[Status.GPU_MISSING] + statuses[Status.SKIPPED]
        return cls(
            sum(statuses.values()), statuses[Status.OK] + statuses[Status.CACHED], statuses[Status.RECORDED], gpu
        )

    @property
    def preview(self) -> bool:
        return self.recorded > 0

    def lead(self) -> str:
        """The banner's words before the torch it names (then its commit, Python, machine and date):
        true for this build, whatever its mode."""
        if self.preview:
            return (
                f"Preview build: {self.recorded} of {self.blocks} examples were not executed here; "
                "they show the output recorded with"
            )
        if self.gpu:
            ones = "one" if self.gpu == 1 else "ones"
            return f"Every example on this site but the {self.gpu} GPU-only {ones} was executed with"
        return "Every example on this site was executed with"


def render(site: SiteRun, titles: dict[str, str]) -> str:
    env = site.environment
    results = site.all_results()
    statuses = Counter(r.status for r in results)
    provenance = Provenance.of(site)
    how = (
        f"This is a render-only preview (`HANDBOOK_EXECUTE=0`): {provenance.recorded} of {provenance.blocks} "
        "blocks were not executed, and each shows the output recorded for this torch release under "
        "`recordings/`. A full build runs each page as follows."
        if provenance.preview
        else f"Every CPU block on this site was executed: {statuses[Status.OK]} in this build, "
        f"{statuses[Status.CACHED]} in an earlier build with identical code, includes and environment, whose "
        "runs were reused."
    )
    lines = [
        "# How this site is built",
        "",
        how,
        "Each page ran in a fresh",
        "process, forked from a server that had already imported torch, with one intra-op thread and",
        "`torch.manual_seed(0)`; its output was captured at the file-descriptor level, normalised",
        "(object addresses, installation paths, log timestamps) and compared with the output recorded",
        "for this torch release under `recordings/`. A block whose output differs fails the build.",
        f"Outputs are recorded with Python {RECORDED_PYTHON}; where another supported Python prints",
        "differently, its output is recorded beside, and shown folded under the block.",
        "",
        "| Property | Value |",
        "|---|---|",
        f"| torch | `{env.torch}` |",
        f"| commit | `{env.git_version}` |",
        f"| Python | `{env.python}` |",
        f"| device | `{env.device}` |",
        f"| blocks | {len(results)} |",
        "",
        # Raw HTML: the report is written after the build, so mkdocs must not validate this link.
        'The machine-readable report is <a href="../execution-report.json"><code>execution-report.json</code></a>.',
        "",
        "## Blocks by status",
        "",
        "| Status | Blocks | Meaning |",
        "|---|---|---|",
    ]
    lines += [f"| `{status.value}` | {count} | {status.meaning} |" for status, count in sorted(statuses.items())]
    lines += ["", "## Pages", "", "| Page | Blocks | Seconds (as executed) |", "|---|---|---|"]
    by_page: dict[str, list] = defaultdict(list)
    for result in results:
        by_page[result.block.page].append(result)
    for page, page_results in by_page.items():
        seconds = sum(r.seconds for r in page_results)
        lines.append(f"| [{titles.get(page, page)}]({page}) | {len(page_results)} | {seconds:.1f} |")
    lines += [
        "",
        "## The state every page starts in",
        "",
        "Before its first block, every page process runs this, so that no page depends on another",
        "or on the machine; every warning is shown, once per place, whatever Python's default",
        "filters would hide:",
        "",
        "```python",
        PAGE_STATE,
        "```",
    ]
    gpu = [r for r in results if r.block.device == "cuda"]
    lines += ["", "## GPU-only blocks", ""]
    if gpu:
        lines += ["| Page | Block | Recorded on |", "|---|---|---|"]
        for r in gpu:
            where = f"{r.gpu.device}, torch {r.gpu.torch}, {r.gpu.date}" if r.gpu else "not recorded yet"
            lines.append(f"| [{titles.get(r.block.page, r.block.page)}]({r.block.page}) | `{r.block.id}` | {where} |")
    else:
        lines.append("None.")
    return "\n".join(lines) + "\n"
