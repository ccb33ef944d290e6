"""A page's Markdown structure, read once: fences, prose lines, headings, titles.

A fence opens with three or more backticks or tildes (at any indent: fences inside
admonitions and tabs are indented) and closes at the next line holding only a run of
the same character at least as long. A heading is an ATX heading of the prose, read
as Python-Markdown reads it (`HashHeaderProcessor`: one to six `#`, closing `#`s
dropped; `##Title` is one too), at the page's top level (an indented line is inside
an admonition, a list or code); a `# comment` in a code fence is never one. A page's
title is its first level-1 heading; a `##` section runs to the next heading of its
level or above. Everything that reads prose (blocks, source links, quoted values,
notebooks, the prose guard, titles and sections) asks this module which lines are code
and where headings are, and everything that writes a fence or a code span around text
it does not control (outputs, error text, diffs, quoted values) asks it for a marker
that text cannot close.
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass

from markdown.blockprocessors import HashHeaderProcessor
from markdown.extensions.toc import slugify, unique

OPENING = re.compile(r"^(?P<indent>[ \t]*)(?P<marker>`{3,}|~{3,})\s*(?P<lang>[\w+-]*)(?P<attrs>.*)$")


# What markdown-exec writes around a block's source (`markdown_exec.code_block`): fixed, so
# a source holding a run this long cannot be shown, only refused.
MARKDOWN_EXEC_FENCE = "`" * 8


def backtick_marker(text: str, shortest: int = 3) -> str:
    """The backtick run that no line of `text` can close, as a fence or a code span around it:
    longer than every run of backticks inside (and at least `shortest` long)."""
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    return "`" * max(shortest, longest + 1)


def fenced(text: str, info: str = "", shortest: int = 3) -> str:
    """`text` as a backtick fence that nothing in it can end; `info` follows the opening marker."""
    marker = backtick_marker(text, shortest)
    return f"{marker}{info}\n{text}\n{marker}"


class FenceError(Exception):
    """A fence that is never closed; `line` is its opening line, 1-based."""

    def __init__(self, line: int):
        super().__init__(f"the fence opened at line {line} is never closed")
        self.line = line


@dataclass(frozen=True)
class Fence:
    first: int  # 0-based index of the opening line
    last: int  # 0-based index of the closing line
    indent: str
    lang: str
    attrs: str

    def body(self, lines: list[str]) -> list[str]:
        """The fence's content, without the indent of its opening line."""
        return [
            line[len(self.indent) :] if line.startswith(self.indent) else line.lstrip()
            for line in lines[self.first + 1 : self.last]
        ]


def _closes(line: str, marker: str) -> bool:
    stripped = line.strip()
    return len(stripped) >= len(marker) and not stripped.strip(marker[0])


def fences(lines: list[str]) -> list[Fence]:
    """Every fence of a page, in order; raises FenceError (naming the line) for one never closed."""
    found: list[Fence] = []
    index = 0
    while index < len(lines):
        opened = OPENING.match(lines[index])
        if not opened:
            index += 1
            continue
        close = next((n for n in range(index + 1, len(lines)) if _closes(lines[n], opened["marker"])), None)
        if close is None:
            raise FenceError(index + 1)
        found.append(Fence(index, close, opened["indent"], opened["lang"], opened["attrs"]))
        index = close + 1
    return found


def prose_lines(lines: list[str]) -> list[bool]:
    """For each line, whether it is prose (not part of a fence)."""
    prose = [True] * len(lines)
    for fence in fences(lines):
        prose[fence.first : fence.last + 1] = [False] * (fence.last - fence.first + 1)
    return prose


@dataclass(frozen=True)
class Heading:
    line: int  # 0-based index of the heading's line
    level: int  # 1 for `#`, up to 6
    title: str  # as written, closing `#`s and surrounding space dropped


def _heading(line: str, index: int) -> Heading | None:
    """`line` as Python-Markdown's block parser reads an ATX heading, else None."""
    found = HashHeaderProcessor.RE.match(line)
    return Heading(index, len(found["level"]), found["header"].strip()) if found else None


def headings(lines: list[str]) -> list[Heading]:
    """Every heading of the page's prose, in order; raises FenceError for a fence never closed."""
    found = [
        _heading(line, index) if prose else None
        for index, (line, prose) in enumerate(zip(lines, prose_lines(lines), strict=True))
    ]
    return [heading for heading in found if heading]


def title_heading(text: str | list[str]) -> Heading | None:
    """The page's first level-1 heading with a title, else None. Above a fence never closed
    it is still found (the scan names that fence)."""
    lines = text.splitlines() if isinstance(text, str) else text
    try:
        found = headings(lines)
    except FenceError as error:
        found = headings(lines[: error.line - 1])
    return next((heading for heading in found if heading.level == 1 and heading.title), None)


def title_of(text: str | list[str]) -> str | None:
    """The page's title: its first level-1 heading (see `title_heading`), else None."""
    heading = title_heading(text)
    return heading.title if heading else None


# `## 视图 {#views}`: an id given by attr_list (a translation keeps its original's ids this way). An id
# that starts with `__` escapes it (`{#\_\_init\_\_}`): inline Markdown reads the heading, and with it the
# attribute list, before attr_list does, and would make `__x__` bold.
EXPLICIT_ID = re.compile(r"\s*\{:?\s*#(?P<id>[\w\\-]+)\s*\}\s*$")
_INLINE_CODE = re.compile(r"`+([^`]*?)`+")
_LINK = re.compile(r"!?\[([^\]]*)\]\([^)]*\)")
_TAG = re.compile(r"<[^>]+>")


def shown_title(title: str) -> str:
    """A heading's title as its page shows it: without the attribute list that gives it an id."""
    return EXPLICIT_ID.sub("", title)


def heading_id(title: str, taken: set[str] | None = None) -> str:
    """The anchor id Python-Markdown's toc gives a heading: its explicit `{#id}`, else the slug of its
    text (code spans, links and tags reduced to their text); with `taken`, made unique as toc does."""
    if explicit := EXPLICIT_ID.search(title):
        return explicit["id"].replace("\\", "")
    text = html.unescape(_TAG.sub("", _LINK.sub(r"\1", _INLINE_CODE.sub(r"\1", title))))
    slug = slugify(text, "-")
    return unique(slug, taken) if taken is not None else slug


def without_heading_ids(markdown: str) -> str:
    """`markdown` with the `{#id}` of each heading line dropped (for renderers without attr_list)."""
    lines = markdown.split("\n")
    for heading in headings(lines):
        lines[heading.line] = EXPLICIT_ID.sub("", lines[heading.line])
    return "\n".join(lines)


@dataclass(frozen=True)
class Section:
    heading: Heading
    end: int  # 0-based index of the line after the section's last: the next heading of its level or above

    @property
    def title(self) -> str:
        return self.heading.title


def sections(lines: list[str], level: int = 2) -> list[Section]:
    """Every section whose heading has `level`, each running to the next heading of that level or above."""
    bounds = [heading for heading in headings(lines) if heading.level <= level]
    ends = [following.line for following in bounds[1:]] + [len(lines)]  # with no bounds, zip drops the lone end
    return [Section(heading, end) for heading, end in zip(bounds, ends, strict=False) if heading.level == level]


def section_of_each_line(lines: list[str], level: int = 2) -> list[str]:
    """For each line, the title of the section of `level` it is in ("" outside every one)."""
    titles = [""] * len(lines)
    for section in sections(lines, level):
        titles[section.heading.line : section.end] = [section.title] * (section.end - section.heading.line)
    return titles
