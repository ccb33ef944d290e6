"""Prose that differs by torch release, written as HTML comments so the Markdown stays readable:

    <!-- if torch >= 2.14 -->
    Text for torch 2.14 and later.
    <!-- else -->
    Text for older releases.
    <!-- end if -->

Operators: `<`, `<=`, `==`, `>=`, `>`; versions compare part by part. Use it only
where a sentence would otherwise be wrong for one of the supported releases.
"""

from __future__ import annotations

import operator
import re

from handbook.environment import version_key

CONDITION = re.compile(
    r"^<!-- if torch (?P<op><=|>=|==|<|>) (?P<version>[\d.]+) -->\n(?P<then>.*?)(?P<otherwise>^<!-- else "
    r"-->\n(?P<else>.*?))?(?P<end>^<!-- end if -->\n?)",
    re.MULTILINE | re.DOTALL,
)
OPERATORS = {"<": operator.lt, "<=": operator.le, "==": operator.eq, ">=": operator.ge, ">": operator.gt}


def holds(match: re.Match, release: str) -> bool:
    wanted = match["version"]
    return OPERATORS[match["op"]](version_key(release, wanted.count(".") + 1), version_key(wanted))


def render(markdown: str, release: str) -> str:
    """The Markdown as the edition for `release` shows it."""
    return CONDITION.sub(lambda m: m["then"] if holds(m, release) else (m["else"] or ""), markdown)


def render_keeping_lines(markdown: str, release: str) -> str:
    """Like `render`, with every line left out blanked, so that line numbers stay those of the source."""

    def blank(text: str | None) -> str:
        return "\n" * (text or "").count("\n")

    def choose(match: re.Match) -> str:
        if holds(match, release):
            return "\n" + match["then"] + blank(match["otherwise"]) + blank(match["end"])
        return "\n" + blank(match["then"]) + ("\n" + match["else"] if match["otherwise"] else "") + blank(match["end"])

    return CONDITION.sub(choose, markdown)
