"""Rendering executed blocks: markdown-exec's syntax and layout, the engine's results.

markdown-exec owns the fence options, the source and result layout and the tabs; a
formatter only says how code runs (`base_format(run=...)`). Here nothing runs: the
block already ran in its page's process, and `run` hands back its (normalised,
recorded) output with the notes that go under it. Fence options are checked when the
page is scanned (`handbook.execution.blocks.check_options`).

Output is data: it goes into a fence that no line of it can end
(`handbook.markdown_structure`), and notes are escaped HTML. What markdown-exec writes
itself (the source's fence, its options as `name="value"`) cannot be made safe from
here, so a block that would break it is refused, naming the block.
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass, field

from markdown_exec import base_format
from markupsafe import Markup
from mkdocs.exceptions import PluginError
from pymdownx.superfences import SuperFencesException

from handbook.edition import Edition
from handbook.environment import minor_version
from handbook.execution.blocks import ENGINE_OPTIONS, Block
from handbook.execution.failures import failure_message, place
from handbook.execution.measurements import measurements
from handbook.execution.recordings import Recordings
from handbook.execution.results import BlockResult
from handbook.execution.status import Status
from handbook.markdown_structure import MARKDOWN_EXEC_FENCE, backtick_marker, fenced
from handbook.messages import Words
from handbook.reports import what_changed
from handbook.tree_files import DOCS_DIR

MAX_LINES = 80
MAX_CHARS = 10_000


# A language superfences reads as one (`result=` names the output's).
LANGUAGE = re.compile(r"[\w#.+-]+")


class UnmatchedBlock(Exception):
    """The renderer met a block that the scan did not find."""


class RefusedBlock(PluginError, SuperFencesException):
    """A block markdown-exec cannot render faithfully. A SuperFencesException, because
    superfences turns any other formatter error into the fence shown as raw text; a
    PluginError, so that mkdocs reports the message and no traceback."""


@dataclass
class PageRenderer:
    """The executed blocks of the page being rendered, handed out in page order by their code."""

    page: str
    results: list[BlockResult]
    show_failures: bool = False  # under `mkdocs serve`, a failure shows on its page
    changed: dict[int, tuple[str, str]] = field(default_factory=dict)  # block index -> (torch X.Y, What changed URL)
    colab_url: str | None = None  # where a reader can run this chapter on a GPU
    other_pythons: dict[int, dict[str, str]] = field(default_factory=dict)  # block index -> {Python: its output}
    # Where each block's `file:line` links: the handbook's repository at the commit the site is
    # built from. Without both (no git checkout), and for a file that differs from that commit, the
    # place is shown as plain text: a link there could point at other lines.
    repo_url: str | None = None
    commit: str | None = None
    uncommitted: frozenset[str] = frozenset()  # repository paths that differ from `commit`
    figure_urls: dict[str, str] = field(default_factory=dict)  # block id -> its figure file, relative to the page
    language: str = "en"  # the site's: the notes' words are in it
    docs_dir: str = DOCS_DIR  # where the page being rendered is (a translation's own), which messages name
    taken: set[int] = field(default_factory=set)

    @property
    def words(self) -> Words:
        return Words(self.language)

    @classmethod
    def for_page(
        cls,
        edition: Edition,
        page: str,
        changes_url: str | None,
        colab_url: str | None,
        serving: bool,
        figure_urls: dict[str, str] | None = None,
    ) -> PageRenderer:
        """What renders `page`'s blocks in `edition`: their results, and where each changed since the last release."""
        results = edition.site.results.get(page, [])
        changed = {}
        if results and changes_url:
            changes = what_changed.changed_blocks(edition.root, edition.release, [edition.site.page(page)])
            changed = {
                block.index: (minor_version(edition.release), f"{changes_url}#{anchor}")
                for block, anchor in changes.items()
            }
        recordings = Recordings(edition.root, edition.release, python=edition.python)
        return cls(
            page,
            results,
            repo_url=edition.config.repo_url,
            commit=edition.revision.commit,
            uncommitted=edition.revision.uncommitted,
            show_failures=serving,
            changed=changed,
            colab_url=colab_url,
            other_pythons={r.block.index: others for r in results if (others := recordings.other_pythons(r.block))},
            figure_urls=figure_urls or {},
            language=edition.config.language,
            docs_dir=edition.docs_dir,
        )

    def take(self, code: str) -> BlockResult:
        wanted = code.strip("\n")
        for index, result in enumerate(self.results):
            if index not in self.taken and result.block.code == wanted:
                self.taken.add(index)
                return result
        raise UnmatchedBlock(
            f"{self.docs_dir}/{self.page}: a rendered Python block was not found by the scan:\n{wanted[:300]}"
        )

    def not_rendered(self) -> list[str]:
        return [result.block.label for index, result in enumerate(self.results) if index not in self.taken]

    def anchors(self) -> set[str]:
        """The ids put before the rendered blocks, which MkDocs' anchor check cannot see in them."""
        return {self.results[index].block.anchor for index in self.taken}

    def format_python(self, *, code: str, **options) -> str:
        """markdown-exec's formatter for `python` fences: source above, the output as text below, by default."""
        result = self.take(code)
        language = options.pop("result", "") or "text"
        _refuse_unwritable(result, code, language, options)
        options["source"] = options.get("source") or "above"
        if self.shows_figure(result):  # the figure first; the code that draws it folded under it (`output_markdown`)
            options["source"] = ""
        options["extra"] = {key: value for key, value in options.get("extra", {}).items() if key not in ENGINE_OPTIONS}
        if options.get("id_prefix") is None:
            options["id_prefix"] = f"{result.block.id}-"
        # An empty element before the block gives links (What changed's "in context") the block itself;
        # a div, which Markdown leaves out of paragraphs (a span would open one around the block).
        return Markup(f'<div id="{result.block.anchor}"></div>') + base_format(
            language="python",
            run=lambda _code, **_: self.output_markdown(result, language),
            code=code,
            result="",
            **options,
        )

    def shows_figure(self, result: BlockResult) -> bool:
        """Whether the page shows the block's figure (and so folds the code that draws it under it)."""
        return bool(
            result.figure and self.figure_urls.get(result.block.id) and (result.passed or not self.show_failures)
        )

    def output_markdown(self, result: BlockResult, language: str) -> str:
        """What goes under a block: its output, cut if long, and the notes that say where it came from. A
        block that draws a figure shows the figure first, then the code that draws it, folded: a reader
        wants the picture; the code is one click away, and is run and checked like any other."""
        words = self.words
        if not result.passed and self.show_failures:
            failed = _code_block("text", failure_message(result), words("This block failed"))
            return "\n\n".join([failed, self.origin_note(result)])
        text, left_out = cut(result.output, self.language) if result.status != Status.GPU_MISSING else ("", "")
        parts = []
        if self.shows_figure(result):
            parts.append(figure_html(self.figure_urls[result.block.id], result.block.alt))
            parts.append(folded_code(result.block.code, words("The code that draws this figure")))
        if text:
            parts.append(_output_block(language, text, words))
        parts.append(self.origin_note(result))
        if note := measured_note(result, self.language):
            parts.append(note)
        if result.predicted is not None:
            parts.append(_prediction_note(result.predicted, words))
        if left_out:
            whole = words(
                "{left_out}; the whole output is in {recording}.", left_out=left_out, recording=result.recording
            )
            parts.append(_note(whole, "cut"))
        if result.status.against_recording:
            unmatched = words("Not matching a recording ({status}); `make goldens` records it.", status=result.status)
            parts.append(_note(unmatched, "warning"))
        by_output: dict[str, list[str]] = {}
        for python, output in self.other_pythons.get(result.block.index, {}).items():
            by_output.setdefault(output, []).append(python)
        parts += [other_python_note(pythons, output, self.language) for output, pythons in by_output.items()]
        if result.block.index in self.changed:
            version, url = self.changed[result.block.index]
            changed = html.escape(words("Output changed in torch {version}", version=version))
            parts.append(f'<p class="handbook-changed"><a href="{html.escape(url)}">{changed}</a></p>')
        return "\n\n".join(parts)

    def origin_url(self, block: Block) -> str | None:
        """The block's first line in the handbook's repository at the commit built, if it can be linked."""
        if not (self.repo_url and self.commit) or block.origin_file in self.uncommitted:
            return None
        return f"{self.repo_url.rstrip('/')}/blob/{self.commit}/{block.origin_file}#L{block.origin_line}"

    def origin_note(self, result: BlockResult) -> str:
        """One short line under a block: its `file:line` (linked where it can be) and how its output
        got onto the page: run in this build, reused from the execution cache, or shown from a
        recording; for a GPU-only block, the GPU its output was recorded on (the only GPU note)."""
        words = self.words
        place = f"<code>{_inline(result.block.origin)}</code>"
        if url := self.origin_url(result.block):
            title = _attribute(words("This block in the handbook's repository"))
            place = f'<a href="{html.escape(url)}" title="{title}">{place}</a>'
        kind, run_it = "handbook-origin", ""
        if result.status.gpu_only:
            kind += " .handbook-gpu"
            if self.colab_url:
                link = f'<a href="{html.escape(self.colab_url)}">{html.escape(words("open this chapter in Colab"))}</a>'
                run_it = words(" To run it on a GPU yourself, {link} and choose a GPU runtime.", link=link)
        # A Markdown paragraph with its class in an attribute list, not a <p> of raw HTML: inside
        # tabs (`source="tabbed-left"`) markdown-exec indents the output, and indented raw HTML
        # would land inside a paragraph of its own. Left out of search: the same few words under every
        # block were a twentieth of the index, which every page loads.
        shown = words("{place}: {how}", place=place, how=_inline(how_shown(result, self.language)))
        return f'{shown}{run_it}\n{{: .{kind} data-search-exclude="" }}'


def folded_code(code: str, title: str) -> str:
    """`code` as highlighted Python in a closed `<details>`, opened with one click (md_in_html reads the
    fence inside it as Markdown)."""
    opening = f'<details class="handbook-code" markdown="1">\n<summary>{html.escape(title)}</summary>'
    return f"{opening}\n\n{fenced(code, 'python')}\n\n</details>"


def figure_html(url: str, alt: str) -> str:
    """A figure under its block's output: the SVG as an <img>, which runs no script and fetches
    nothing, whatever the file holds (the sanitiser is the first defence, this the second)."""
    return (
        f'<figure class="handbook-figure"><img src="{html.escape(url)}" alt="{html.escape(alt)}" '
        'loading="lazy"></figure>'
    )


def how_shown(result: BlockResult, language: str = "en") -> str:
    """How a block's output got onto the page, in a few words of the site's language."""
    words, status = Words(language), result.status
    if status == Status.GPU_RECORDED and (gpu := result.gpu):
        return words(
            "GPU-only block, not run in this build. Output recorded on {device} with torch {torch} on {date}.",
            device=gpu.device,
            torch=gpu.torch,
            date=gpu.date,
        )
    if status == Status.GPU_MISSING:
        return words(
            "GPU-only block: it runs only where CUDA is available, and no output has been recorded on a GPU yet."
        )
    if status == Status.RECORDED:
        return words("not run in this build; shown from its recording (a render-only preview).")
    if not status.passes and not status.against_recording:
        return words("{meaning}.", meaning=words(status.meaning))
    if status == Status.CACHED or result.from_cache:
        return words("ran in an earlier build; its run was reused from the execution cache.")
    return words("ran in this build.")


def _refuse_unwritable(result: BlockResult, code: str, language: str, options: dict) -> None:
    """Refuse what markdown-exec would write back broken: its fixed fence around the source,
    its `name="value"` options (no escape exists for `"` in them), the output's language."""
    where = place(result)
    if len(backtick_marker(code)) > len(MARKDOWN_EXEC_FENCE):
        raise RefusedBlock(
            f"{where}: the code holds a run of {len(MARKDOWN_EXEC_FENCE)} or more backticks, which would end "
            "the fence markdown-exec writes around it; build the string instead (e.g. '`' * 8)"
        )
    for name, value in options.get("extra", {}).items():
        if '"' in str(value):
            raise RefusedBlock(
                f"{where}: the option {name}= holds a double quote, which markdown-exec cannot write back; "
                "use typographic quotes (“ ”) or single quotes"
            )
    if not LANGUAGE.fullmatch(language):
        raise RefusedBlock(f"{where}: result={language!r} is not a language name (letters, digits, _ # . + -)")
    if options.get("source") == "console":
        raise RefusedBlock(
            f'{where}: source="console" puts the output inside the fence markdown-exec writes around the '
            'source; use source="above" (the default) or tabs'
        )


def _code_block(language: str, text: str, title: str) -> str:
    """`text` as a code block with a title, in a fence that no line of it can end."""
    return fenced(text, f'{language} title="{title}"')


def _output_block(language: str, text: str, words: Words) -> str:
    """A block's output: a code block titled "Output" with the class `handbook-output` (superfences'
    attribute syntax, which holds inside tabs too), which handbook.css sets apart from the source:
    its own background, a bar in the accent colour, and a label that stays in view."""
    return fenced(text, f'{{.{language} .handbook-output title="{words("Output")}" data-search-exclude=""}}')


def _inline(text: str) -> str:
    """`text` as Markdown that shows it as it is: HTML escaped, and Markdown's own marks as
    character references (a path's `__init__` is not bold)."""
    return "".join(f"&#{ord(c)};" if c in "_*`[]{}\\" else html.escape(c) for c in text)


def _attribute(text: str) -> str:
    """`text` as an HTML attribute's value, its apostrophes as `&#39;` (as the notes always wrote them)."""
    return html.escape(text).replace("&#x27;", "&#39;")


def other_python_note(pythons: list[str], output: str, language: str = "en") -> str:
    """An output other supported Pythons print instead (recorded for them), folded under the block's own."""
    words = Words(language)
    text, left_out = cut(output, language)
    more = f"<p>({html.escape(left_out)})</p>" if left_out else ""
    names = words(" and ").join(pythons)
    if len(pythons) == 1:
        summary = words("Python {names} prints this differently", names=names)
    else:
        summary = words("Python {names} print this differently", names=names)
    return (
        f'<details class="handbook-python"><summary>{html.escape(summary)}</summary>'
        f"<pre><code>{html.escape(text)}</code></pre>{more}</details>"
    )


def measured_note(result: BlockResult, language: str = "en") -> str:
    """Under a block that measures: where its values were measured, and what the build checks."""
    words, count = Words(language), len(measurements(result.output))
    if not count:
        return ""
    if not result.status.ran:
        return _note(_values_as_recorded(words, count), "measured")
    if result.status == Status.OK:
        when = words("in this build")
    else:
        when = words("in an earlier build (from the execution cache)")
    where = words(" on {machine}", machine=machine.describe(language)) if (machine := result.ran_on) else ""
    if count == 1:
        measured = words(
            "The value marked (measured; claim: …) was measured {when}{where}; the build checks it against its "
            "claim, not against the recorded value.",
            when=when,
            where=where,
        )
    else:
        measured = words(
            "The {count} values marked (measured; claim: …) were measured {when}{where}; the build checks each "
            "against its claim, not against the recorded value.",
            count=count,
            when=when,
            where=where,
        )
    return _note(measured, "measured")


def _values_as_recorded(words: Words, count: int) -> str:
    """What the note under a block that measures says when nothing ran: its values are the recording's."""
    if count == 1:
        return words(
            "The value marked (measured; claim: …): shown as recorded, not measured in this build; "
            "the build checks it against its claim, not against the recorded value."
        )
    return words(
        "The {count} values marked (measured; claim: …): shown as recorded, not measured in this build; "
        "the build checks each against its claim, not against the recorded value.",
        count=count,
    )


def _prediction_note(target: BlockResult, words: Words) -> str:
    """Under a block that predicts a GPU block's output on the CPU: what its prediction was checked against."""
    if gpu := target.gpu:
        agree = words(
            "A prediction, checked against the output recorded on {device} with torch {torch} on {date}: they agree.",
            device=gpu.device,
            torch=gpu.torch,
            date=gpu.date,
        )
        return _note(agree, "gpu")
    return _note(
        words("A prediction, computed on the CPU; no output has been recorded on a GPU yet to check it against."),
        "gpu",
    )


def cut(output: str, language: str = "en") -> tuple[str, str]:
    """Very long output is shortened on the page, by lines and then by characters (one
    line can be megabytes); the recording keeps all of it. Returns the text shown and
    what was left out ("" when nothing was), in the site's language."""
    words = Words(language)
    lines = output.split("\n", MAX_LINES)
    hidden_lines = output.count("\n", len(output) - len(lines[-1])) + 1 if len(lines) > MAX_LINES else 0
    shown = "\n".join(lines[:MAX_LINES])
    if len(shown) > MAX_CHARS:
        shown = shown[:MAX_CHARS]
        if "\n" in shown:  # end at a line break where one is at hand
            shown = shown[: shown.rindex("\n")]
        return shown, words("{count:,} more character(s) not shown", count=len(output) - len(shown))
    return shown, words("{count:,} more line(s) not shown", count=hidden_lines) if hidden_lines else ""


def _note(text: str, kind: str = "note", trusted_html: str = "") -> str:
    return f'<p class="handbook-{kind}">{html.escape(text)}{trusted_html}</p>'
