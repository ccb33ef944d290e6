"""The "How this site is built" page: the execution report, rendered for readers in the site's language."""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass
from pathlib import Path

from markdown.extensions.toc import slugify

from handbook import labs, switches
from handbook.environment import RECORDED_PYTHON
from handbook.execution.page_state import PAGE_STATE
from handbook.execution.results import SiteRun
from handbook.execution.status import Status
from handbook.languages import DEFAULT
from handbook.messages import Words, translatable
from handbook.tree_files import read_text

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

    def lead(self, language: str = DEFAULT) -> str:
        """The banner's words before the torch it names (then its commit, Python, machine and date):
        true for this build, whatever its mode."""
        words = Words(language)
        if self.preview:
            return words(
                "Preview build: {recorded} of {blocks} examples were not executed here; "
                "they show the output recorded with",
                recorded=self.recorded,
                blocks=self.blocks,
            )
        if self.gpu == 1:
            return words("Every example on this site but the {gpu} GPU-only one was executed with", gpu=self.gpu)
        if self.gpu:
            return words("Every example on this site but the {gpu} GPU-only ones was executed with", gpu=self.gpu)
        return words("Every example on this site was executed with")


def _heading(words: Words, level: int, english: str) -> str:
    """A heading in the page's language with the English title's anchor id, which links from the
    translated pages keep (`english` is marked `translatable` where it is written)."""
    title = words(english)
    same_id = f" {{#{slugify(english, '-')}}}" if title != english else ""
    return f"{'#' * level} {title}{same_id}"


# What each chapter does to keep its outputs the same on every run and machine, written by the chapters'
# authors (one `### <chapter>` part each), shown under "Stable outputs": `notes/stable-outputs.md`, and
# `notes/stable-outputs.<language>.md` in another language.
STABLE_OUTPUTS = "notes/stable-outputs"


def stable_outputs(root: Path, language: str = DEFAULT) -> str:
    """The chapters' notes on how their outputs stay steady, in `language` ("" where there are none)."""
    path = root / f"{STABLE_OUTPUTS}{'' if language == DEFAULT else '.' + language}.md"
    return read_text(path, path.relative_to(root).as_posix()).strip() if path.is_file() else ""


def render(site: SiteRun, titles: dict[str, str], language: str = DEFAULT, steady: str = "") -> str:
    """The page's Markdown, in the site's `language`; `steady`, the chapters' notes (`stable_outputs`)."""
    words = Words(language)
    lines = [_heading(words, 1, translatable("How this site is built")), "", _how(site, words), ""]
    lines += _properties(site, words)
    lines += ["", _heading(words, 2, translatable("Blocks by status")), ""]
    lines += _table_head(words("Status"), words("Blocks"), words("Meaning"))
    statuses = Counter(r.status for r in site.all_results())
    lines += [f"| `{status.value}` | {count} | {words(status.meaning)} |" for status, count in sorted(statuses.items())]
    lines += ["", _heading(words, 2, translatable("Pages")), ""]
    lines += _pages(site, titles, words)
    lines += ["", _heading(words, 2, translatable("The state every page starts in")), ""]
    lines += [
        words(
            "Before its first block, every page process runs this, so that no page depends on another\n"
            "or on the machine; every warning is shown, once per place, whatever Python's default\n"
            "filters would hide:"
        ),
        "",
        "```python",
        PAGE_STATE,
        "```",
    ]
    if steady:
        lines += ["", _heading(words, 2, translatable("Stable outputs")), ""]
        lines += [
            words(
                "A page's output must mean the same on every run and every machine. What each chapter does for\n"
                "that, beyond the state above:"
            ),
            "",
            steady,
        ]
    lines += ["", _heading(words, 2, translatable("GPU-only blocks")), ""]
    lines += _gpu_blocks(site, titles, words)
    return "\n".join(lines) + "\n"


def _how(site: SiteRun, words: Words) -> str:
    """The first paragraph: how many blocks ran (or, in a preview, did not), and how each page runs."""
    statuses = Counter(r.status for r in site.all_results())
    provenance = Provenance.of(site)
    if provenance.preview:
        how = words(
            "This is a render-only preview (`{execute}=0`): {recorded} of {blocks} "
            "blocks were not executed, and each shows the output recorded for this torch release under "
            "`recordings/`. A full build runs each page as follows.",
            execute=switches.EXECUTE,
            recorded=provenance.recorded,
            blocks=provenance.blocks,
        )
    else:
        how = words(
            "Every CPU block on this site was executed: {ok} in this build, "
            "{cached} in an earlier build with identical code, includes and environment, whose runs were reused.",
            ok=statuses[Status.OK],
            cached=statuses[Status.CACHED],
        )
    return words(
        "{how}\nEach page ran in a fresh\n"
        "process, forked from a server that had already imported torch, with one intra-op thread and\n"
        "`torch.manual_seed(0)`; its output was captured at the file-descriptor level, normalised\n"
        "(object addresses, installation paths, log timestamps) and compared with the output recorded\n"
        "for this torch release under `recordings/`. A block whose output differs fails the build.\n"
        "Outputs are recorded with Python {python}; where another supported Python prints\n"
        "differently, its output is recorded beside, and shown folded under the block.",
        how=how,
        python=RECORDED_PYTHON,
    )


def _table_head(*columns: str) -> list[str]:
    return ["| " + " | ".join(columns) + " |", "|" + "---|" * len(columns)]


def _properties(site: SiteRun, words: Words) -> list[str]:
    """The table of what the site was built with, and the link to the machine-readable report."""
    env = site.environment
    return [
        *_table_head(words("Property"), words("Value")),
        f"| torch | `{env.torch}` |",
        f"| {words('commit')} | `{env.git_version}` |",
        f"| Python | `{env.python}` |",
        f"| {words('device')} | `{env.device}` |",
        f"| {words('blocks')} | {len(site.all_results())} |",
        "",
        # Raw HTML: the report is written after the build, so mkdocs must not validate this link.
        words(
            "The machine-readable report is {link}.",
            link='<a href="../execution-report.json"><code>execution-report.json</code></a>',
        ),
    ]


def site_file(page: str) -> str:
    """The file a page's link names: a chapter's Markdown, or a lab's page (`tensors.py` -> `labs/tensors.ipynb`)."""
    return labs.page_path(page) if page.endswith(labs.SUFFIX) else page


def _pages(site: SiteRun, titles: dict[str, str], words: Words) -> list[str]:
    """Each page with its blocks and the seconds they took, in page order."""
    lines = _table_head(words("Page"), words("Blocks"), words("Seconds (as executed)"))
    by_page: dict[str, list] = defaultdict(list)
    for result in site.all_results():
        by_page[result.block.page].append(result)
    for page, page_results in by_page.items():
        seconds = sum(r.seconds for r in page_results)
        lines.append(f"| [{titles.get(page, page)}]({site_file(page)}) | {len(page_results)} | {seconds:.1f} |")
    return lines


def _gpu_blocks(site: SiteRun, titles: dict[str, str], words: Words) -> list[str]:
    """Each GPU-only block with where its output was recorded."""
    gpu = [r for r in site.all_results() if r.block.device == "cuda"]
    if not gpu:
        return [words("None.")]
    lines = _table_head(words("Page"), words("Block"), words("Recorded on"))
    for r in gpu:
        where = f"{r.gpu.device}, torch {r.gpu.torch}, {r.gpu.date}" if r.gpu else words("not recorded yet")
        lines.append(f"| [{titles.get(r.block.page, r.block.page)}]({r.block.page}) | `{r.block.id}` | {where} |")
    return lines
