"""Values quoted from outputs: prose that repeats what a block printed, for the torch being built.

    The wheel calls itself `<!-- out version-version /__version__\\s*: (\\S+)/ -->`.

`<!-- out BLOCK /PATTERN/ -->` becomes the first match of the regular expression
PATTERN in the output of the block whose id is BLOCK on the same page (or
`page.md#BLOCK` on another page): its first group if it has groups, else the whole
match. The output is the one shown for this edition (executed, cached or recorded).
A pattern that matches nothing, or a block that does not exist, fails the build,
naming page and line. Lines inside fences are left alone.

A value is data. In prose it is escaped for Markdown and HTML, which the page and the
notebook's Markdown cells both read (`\\[`, `&lt;`); inside a code span it is literal,
and one holding a backtick, which would end the span, fails the build. A pattern runs in
a worker process for at most PATTERN_SECONDS: Python's `re` backtracks, and a pattern like
`(a+)+$` would otherwise hang the build.
"""

from __future__ import annotations

import atexit
import html
import multiprocessing
import re
from collections.abc import Callable
from dataclasses import dataclass, field

from handbook.markdown_structure import prose_lines

QUOTE = re.compile(r"<!-- out (?:(?P<page>[\w/.-]+\.md)#)?(?P<block>[\w.-]+) /(?P<pattern>.+?)/ -->")

# (page, block id) -> that block's output for this edition, or None when the page has no such block.
OutputLookup = Callable[[str, str], "str | None"]


@dataclass
class QuotedProse:
    markdown: str
    errors: list[str] = field(default_factory=list)
    count: int = 0  # quotes resolved


PATTERN_SECONDS = 2.0
STARTUP_SECONDS = 120.0
# What Python-Markdown lets a backslash escape (its ESCAPED_CHARS with `tables`'s `|`), all of
# it ASCII punctuation, which CommonMark (the notebook's cells) lets a backslash escape too.
MARKDOWN_PUNCTUATION = re.compile(r"([\\`*_{}\[\]()#+\-.!|])")


class PatternTimeout(Exception):
    """A quote's pattern ran past PATTERN_SECONDS."""


def _first_match(pattern: str, output: str) -> str | None:
    match = re.search(pattern, output, re.MULTILINE)
    if match is None:
        return None
    return match[1] if match.re.groups else match[0]


class _Searcher:
    """One worker process that runs patterns, replaced when a pattern outruns its time."""

    pool = None

    @classmethod
    def first_match(cls, pattern: str, output: str, seconds: float) -> str | None:
        if cls.pool is None:
            cls.pool = multiprocessing.get_context("spawn").Pool(1)
            # Ended before the interpreter's own teardown (atexit runs the last registered first), which
            # would otherwise race the pool's resource tracker to unlink its semaphores and print
            # FileNotFoundError tracebacks at the end of a build.
            atexit.register(cls.stop)
            # Started and answering before any pattern is timed: on a busy machine the worker's
            # start-up alone can take longer than a pattern may.
            cls.pool.apply_async(_first_match, ("", "")).get(STARTUP_SECONDS)
        pending = cls.pool.apply_async(_first_match, (pattern, output))
        try:
            return pending.get(seconds)
        except multiprocessing.TimeoutError:
            cls.stop()
            raise PatternTimeout from None

    @classmethod
    def stop(cls) -> None:
        if cls.pool is not None:
            cls.pool.terminate()
            cls.pool.join()
            cls.pool = None


def quoted_value(output: str, pattern: str, seconds: float = PATTERN_SECONDS) -> str | None:
    """The first match of `pattern` in `output` (its first group if it has one); raises re.error
    for a pattern that does not compile, PatternTimeout for one that runs too long."""
    re.compile(pattern)  # a bad pattern fails here, where its message is clearest
    return _Searcher.first_match(pattern, output, seconds)


def prose_text(value: str) -> str:
    """A value as literal text in Markdown prose: no link, markup, attribute list or HTML."""
    return MARKDOWN_PUNCTUATION.sub(r"\\\1", html.escape(" ".join(value.splitlines())))


def in_code_span(line: str, start: int, end: int | None = None) -> bool:
    """Whether `line[start:end]` lies inside a code span, as Markdown reads the line: a run of backticks
    that no backslash escapes opens one, and the next run exactly as long closes it, if there is one
    (after `end`: a span with no closer is no span, and its backticks are text). Where it is not sure,
    it answers no: the value is then escaped as prose, never pasted as it is."""
    end = start if end is None else end
    opened, position = 0, 0
    while position < start:
        if line[position] == "\\" and not opened and position + 1 < len(line) and line[position + 1] in PUNCTUATION:
            position += 2  # an escaped character, a backtick or a backslash among them, is text
            continue
        if line[position] == "`":
            run = len(line[position:]) - len(line[position:].lstrip("`"))
            opened = 0 if run == opened else opened or run
            position += run
            continue
        position += 1
    if not opened or position > start:  # the quote starts inside a run of backticks: not in a span
        return False
    return any(len(run[0]) == opened for run in re.finditer(r"`+", line[end:]))


PUNCTUATION = set("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~")  # what a backslash escapes (CommonMark, ASCII)


def _quote(match: re.Match, page: str, output_of: OutputLookup, line: str, docs_dir: str) -> tuple[str, str]:
    """(the problem, "") for a quote that cannot be resolved, else ("", the text it becomes in `line`)."""
    source_page = match["page"] or page
    output = output_of(source_page, match["block"])
    if output is None:
        return f"{docs_dir}/{source_page} has no block {match['block']!r}", ""
    try:
        value = quoted_value(output, match["pattern"])
    except re.error as error:
        return f"the pattern is not a valid regular expression ({error})", ""
    except PatternTimeout:
        return (
            f"the pattern ran past {PATTERN_SECONDS:g} s on block {match['block']!r}'s output and was stopped "
            "(nested repeats such as (a+)+ backtrack without end); simplify it"
        ), ""
    if value is None:
        return f"block {match['block']!r} printed nothing matching /{match['pattern']}/ with this torch", ""
    if not in_code_span(line, match.start(), match.end()):
        return "", prose_text(value)
    if "`" in value:
        return f"the value {value!r} holds a backtick, which would end the code span around it", ""
    return "", " ".join(value.splitlines())


def resolve_quotes(markdown: str, page: str, output_of: OutputLookup, docs_dir: str) -> QuotedProse:
    """Replace every quote of `page`'s Markdown (a page under `docs_dir`, which messages name); collect one
    error per quote that cannot be resolved."""
    result = QuotedProse("")
    lines = markdown.splitlines()

    def replace(match: re.Match, number: int) -> str:
        problem, text = _quote(match, page, output_of, lines[number - 1], docs_dir)
        if problem:
            result.errors.append(f"{docs_dir}/{page}:{number}: {match[0]}: {problem}")
            return match[0]
        result.count += 1
        return text

    output = [
        QUOTE.sub(lambda match, n=number: replace(match, n), line) if prose else line
        for number, (line, prose) in enumerate(zip(lines, prose_lines(lines), strict=True), 1)
    ]
    result.markdown = "\n".join(output) + ("\n" if markdown.endswith("\n") else "")
    return result
