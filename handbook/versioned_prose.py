"""Prose that differs by torch release or by Python, written as HTML comments so the Markdown stays readable:

    <!-- if torch >= 2.14 -->
    Text for torch 2.14 and later.
    <!-- else -->
    Text for older releases.
    <!-- end if -->

`<!-- if python >= 3.13 -->` chooses by the Python the edition is built with.
Operators: `<`, `<=`, `==`, `>=`, `>`; versions compare part by part. Use it only
where a sentence would otherwise be wrong for one of the supported releases or Pythons.
Conditions do not nest. A condition that cannot be read (`torch >= banana`), an `if`
without its `end if`, or an `else` or `end if` without its `if` is an error naming
the line: read loosely, it would show both branches.
"""

from __future__ import annotations

import functools
import operator
import re

from handbook.environment import RECORDED_PYTHON, version_key
from handbook.errors import InputError
from handbook.markdown_structure import FenceError, prose_lines

CONDITION = re.compile(
    r"^<!-- if (?P<subject>torch|python) (?P<op><=|>=|==|<|>) (?P<version>\d+(?:\.\d+)*) -->\n(?P<then>.*?)"
    r"(?P<otherwise>^<!-- else -->\n(?P<else>.*?))?(?P<end>^<!-- end if -->\n?)",
    re.MULTILINE | re.DOTALL,
)
# A line that means to be one of the three, however misspelt (an ordinary comment does not start so).
DIRECTIVE = re.compile(
    r"^\s*<!--\s*(?:(?P<if>if)\s+(?:torch|python)\b|(?P<else>else)\s*-->|(?P<end>end\s*if)\b)", re.IGNORECASE
)
IF = re.compile(r"<!-- if (?:torch|python) (?:<=|>=|==|<|>) \d+(?:\.\d+)* -->")
ELSE, END = "<!-- else -->", "<!-- end if -->"


class VersionedProseError(InputError):
    """A condition that cannot be read; `line` is 1-based."""

    def __init__(self, where: str, line: int, problem: str):
        super().__init__(f"{where}:{line}: {problem}")
        self.line = line


def check(markdown: str, where: str) -> None:
    """Raise VersionedProseError for the first condition line that is not as the module
    docstring writes them, or that does not pair up; `where` names the page."""
    _check(_masked(markdown, where), where)


def _check(masked: str, where: str) -> None:
    opened: int | None = None  # the line of the open `if`
    seen_else = False
    for number, line in enumerate(masked.split("\n"), 1):
        directive = DIRECTIVE.match(line)
        if not directive:
            continue
        word = "if" if directive["if"] else "else" if directive["else"] else "end if"
        problem = _misspelt(line, word) or _unpaired(word, opened, seen_else)
        if problem:
            raise VersionedProseError(where, number, problem)
        if word == "if":
            opened, seen_else = number, False
        elif word == "else":
            seen_else = True
        else:
            opened = None
    if opened is not None:
        raise VersionedProseError(where, opened, f"this 'if' has no '{END}' below it")


def _misspelt(line: str, word: str) -> str | None:
    # As CONDITION reads them: text may follow an `end if` on its line, nothing else may.
    written = IF.fullmatch(line) if word == "if" else line == ELSE if word == "else" else line.startswith(END)
    if written:
        return None
    return (
        f"{line.strip()!r} is not a condition this page can use: write '<!-- if torch >= 2.14 -->' (or python; "
        f"operators <, <=, ==, >=, >), '{ELSE}' and '{END}', each at the start of a line of its own"
    )


def _unpaired(word: str, opened: int | None, seen_else: bool) -> str | None:
    if word == "if" and opened is not None:
        return f"an 'if' inside the 'if' of line {opened}: conditions do not nest"
    if word != "if" and opened is None:
        return f"'<!-- {word} -->' without an 'if' above it"
    if word == "else" and seen_else:
        return f"a second '{ELSE}' for the 'if' of line {opened}"
    return None


OPERATORS = {"<": operator.lt, "<=": operator.le, "==": operator.eq, ">=": operator.ge, ">": operator.gt}


def holds(match: re.Match, release: str, python: str) -> bool:
    wanted = match["version"]
    actual = release if match["subject"] == "torch" else python
    return OPERATORS[match["op"]](version_key(actual, wanted.count(".") + 1), version_key(wanted))


def _masked(markdown: str, where: str) -> str:
    """`markdown` with every fenced line blanked, offsets kept: a condition shown in a code fence is
    an example, kept as written, so conditions are looked for here and their text taken from the page."""
    lines = markdown.split("\n")
    try:
        prose = prose_lines(lines)
    except FenceError as error:  # named like any bad line of the page, not a traceback
        raise VersionedProseError(where, error.line, str(error)) from error
    return "\n".join(line if kept else " " * len(line) for line, kept in zip(lines, prose, strict=True))


def _replaced(markdown: str, where: str, choose) -> str:
    """`markdown`, checked, with each condition replaced by `choose(match, text)`, where `text(group)`
    is that group's text in the page (None for a group that did not match)."""
    masked = _masked(markdown, where)
    _check(masked, where)
    pieces, last = [], 0
    for match in CONDITION.finditer(masked):
        pieces += [markdown[last : match.start()], choose(match, functools.partial(_group, markdown, match))]
        last = match.end()
    return "".join([*pieces, markdown[last:]])


def _group(markdown: str, match: re.Match, name: str) -> str | None:
    return None if match.start(name) < 0 else markdown[match.start(name) : match.end(name)]


def render(markdown: str, release: str, python: str = RECORDED_PYTHON, where: str = "the page") -> str:
    """The Markdown as the edition for `release`, built with `python`, shows it (`where` names it in errors)."""
    return _replaced(
        markdown, where, lambda match, text: text("then") if holds(match, release, python) else (text("else") or "")
    )


def render_keeping_lines(markdown: str, release: str, python: str = RECORDED_PYTHON, where: str = "the page") -> str:
    """Like `render`, with every line left out blanked, so that line numbers stay those of the source."""

    def blank(text: str | None) -> str:
        return "\n" * (text or "").count("\n")

    def choose(match: re.Match, text) -> str:
        if holds(match, release, python):
            return "\n" + text("then") + blank(text("otherwise")) + blank(text("end"))
        return "\n" + blank(text("then")) + ("\n" + text("else") if text("otherwise") else "") + blank(text("end"))

    return _replaced(markdown, where, choose)
