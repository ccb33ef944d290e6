"""Values quoted from outputs: prose that repeats what a block printed, for the torch being built.

    The wheel calls itself `<!-- out version-version /__version__\\s*: (\\S+)/ -->`.

`<!-- out BLOCK /PATTERN/ -->` becomes the first match of the regular expression
PATTERN in the output of the block whose id is BLOCK on the same page (or
`page.md#BLOCK` on another page): its first group if it has groups, else the whole
match. The output is the one shown for this edition (executed, cached or recorded).
A pattern that matches nothing, or a block that does not exist, fails the build,
naming page and line. Lines inside fences are left alone.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field

from handbook.fences import prose_lines

QUOTE = re.compile(r"<!-- out (?:(?P<page>[\w/.-]+\.md)#)?(?P<block>[\w.-]+) /(?P<pattern>.+?)/ -->")

# (page, block id) -> that block's output for this edition, or None when the page has no such block.
OutputLookup = Callable[[str, str], "str | None"]


@dataclass
class QuotedProse:
    markdown: str
    errors: list[str] = field(default_factory=list)
    count: int = 0  # quotes resolved


def quoted_value(output: str, pattern: str) -> str | None:
    match = re.search(pattern, output, re.MULTILINE)
    if match is None:
        return None
    return match[1] if match.re.groups else match[0]


def resolve_quotes(markdown: str, page: str, output_of: OutputLookup) -> QuotedProse:
    """Replace every quote of `page`'s Markdown; collect one error per quote that cannot be resolved."""
    result = QuotedProse("")
    lines = markdown.splitlines()

    def replace(match: re.Match, number: int) -> str:
        source_page = match["page"] or page
        output = output_of(source_page, match["block"])
        where = f"docs/{page}:{number}: {match[0]}"
        if output is None:
            result.errors.append(f"{where}: docs/{source_page} has no block {match['block']!r}")
            return match[0]
        try:
            value = quoted_value(output, match["pattern"])
        except re.error as error:
            result.errors.append(f"{where}: the pattern is not a valid regular expression ({error})")
            return match[0]
        if value is None:
            result.errors.append(
                f"{where}: block {match['block']!r} printed nothing matching /{match['pattern']}/ with this torch"
            )
            return match[0]
        result.count += 1
        return value

    output = [
        QUOTE.sub(lambda match, n=number: replace(match, n), line) if prose else line
        for number, (line, prose) in enumerate(zip(lines, prose_lines(lines), strict=True), 1)
    ]
    result.markdown = "\n".join(output) + ("\n" if markdown.endswith("\n") else "")
    return result
