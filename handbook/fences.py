"""Fenced code in a page's Markdown: the one rule for where a fence opens and closes.

A fence opens with three or more backticks or tildes (at any indent: fences inside
admonitions and tabs are indented) and closes at the next line holding only a run of
the same character at least as long. Everything that reads prose (blocks, source
links, quoted values, notebooks, the prose guard) asks this module which lines are code,
and everything that writes a fence or a code span around text it does not control
(outputs, error text, diffs, quoted values) asks it for a marker that text cannot close.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

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
