"""Rendering executed blocks: markdown-exec's syntax, our results.

`format_python` replaces markdown-exec's in-process Python formatter. It does not
execute anything: the block already ran in its page's process, and this shows its
source and its (normalised, recorded) output as text.
"""

from __future__ import annotations

import html
from dataclasses import dataclass, field

from markdown_exec import MarkdownConverter, add_source, code_block, default_tabs

from handbook.execution import BlockResult
from handbook.report import describe

# Fence options that the engine reads; they are not HTML attributes.
ENGINE_OPTIONS = ("timeout", "device", "memory", "predicts")
MAX_LINES = 80
MAX_CHARS = 10_000


class UnmatchedBlock(Exception):
    """The renderer met a block that the scan did not find."""


@dataclass
class PageResults:
    page: str
    results: list[BlockResult]
    show_failures: bool = False  # under `mkdocs serve`, a failure shows on its page
    changed: dict[int, tuple[str, str]] = field(default_factory=dict)  # block index -> (torch X.Y, What changed URL)
    colab_url: str | None = None  # where a reader can run this chapter on a GPU
    taken: set[int] = field(default_factory=set)

    def take(self, code: str) -> BlockResult:
        wanted = code.strip("\n")
        for index, result in enumerate(self.results):
            if index not in self.taken and result.block.code == wanted:
                self.taken.add(index)
                return result
        raise UnmatchedBlock(f"docs/{self.page}: a rendered Python block was not found by the scan:\n{wanted[:300]}")


current: PageResults | None = None


def cut(output: str) -> tuple[str, str]:
    """Very long output is shortened on the page, by lines and then by characters (one
    line can be megabytes); the recording keeps all of it. Returns the text shown and
    what was left out ("" when nothing was)."""
    lines = output.split("\n", MAX_LINES)
    hidden_lines = output.count("\n", len(output) - len(lines[-1])) + 1 if len(lines) > MAX_LINES else 0
    shown = "\n".join(lines[:MAX_LINES])
    if len(shown) > MAX_CHARS:
        shown = shown[:MAX_CHARS]
        if "\n" in shown:  # end at a line break where one is at hand
            shown = shown[:shown.rindex("\n")]
        return shown, f"{len(output) - len(shown):,} more character(s) not shown"
    return shown, f"{hidden_lines:,} more line(s) not shown" if hidden_lines else ""


def _note(text: str, kind: str = "note", trusted_html: str = "") -> str:
    return f'<p class="handbook-{kind}">{html.escape(text)}{trusted_html}</p>'


def render_result(result: BlockResult, language: str) -> str:
    run_it = ""
    if current and current.colab_url:
        run_it = f' To run it on a GPU yourself, <a href="{html.escape(current.colab_url)}">open this chapter in Colab</a> and choose a GPU runtime.'
    if result.status == "gpu-missing":
        return _note("GPU-only block: it runs only where CUDA is available, and no output has been recorded on a GPU yet.", "gpu", run_it)
    if not result.passed and current and current.show_failures:
        return code_block("text", describe(result), title="This block failed")
    text, left_out = cut(result.output)
    parts = []
    if result.status == "gpu-recorded" and result.gpu:
        parts.append(_note(f"GPU-only block, not run in this build. Output recorded on {result.gpu.device} with torch {result.gpu.torch} on {result.gpu.date}.", "gpu", run_it))
    if text:
        parts.append(code_block(language, text, title="Output"))
    if result.predicted is not None:
        target = result.predicted
        if target.gpu:
            parts.append(_note(f"A prediction, checked against the output recorded on {target.gpu.device} with torch {target.gpu.torch} on {target.gpu.date}: they agree.", "gpu"))
        else:
            parts.append(_note("A prediction, computed on the CPU; no output has been recorded on a GPU yet to check it against.", "gpu"))
    if left_out:
        parts.append(_note(f"{left_out}; the whole output is in {result.recording}.", "cut"))
    if result.status in {"unrecorded", "drift"}:
        parts.append(_note(f"Not matching a recording ({result.status}); `make goldens` records it.", "warning"))
    if current and result.block.index in current.changed:
        version, url = current.changed[result.block.index]
        parts.append(f'<p class="handbook-changed"><a href="{html.escape(url)}">Output changed in torch {version}</a></p>')
    return "\n\n".join(parts)


def format_python(*, code: str, md, source: str = "", result: str = "", tabs: tuple[str, str] = default_tabs, id: str = "", id_prefix: str | None = None, update_toc: bool = True, extra: dict | None = None, **_: object) -> str:  # noqa: A002
    """A markdown-exec formatter: source above, recorded output below, by default."""
    if current is None:
        raise UnmatchedBlock("a Python block was rendered outside a scanned page")
    extra = {key: value for key, value in (extra or {}).items() if key not in ENGINE_OPTIONS}
    block_result = current.take(code)
    output = render_result(block_result, result or "text")
    wrapped = add_source(source=code, location=source or "above", output=output, language="python", tabs=tabs, result=result or "text", **extra)
    prefix = id_prefix if id_prefix is not None else f"{block_result.block.id}-"
    return MarkdownConverter(md, update_toc=update_toc).convert(wrapped, id_prefix=prefix)
