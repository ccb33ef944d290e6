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
    r"^<!-- if torch (?P<op><=|>=|==|<|>) (?P<version>[\d.]+) -->\n(?P<then>.*?)(?:^<!-- else -->\n(?P<else>.*?))?^<!-- end if -->\n?",
    re.MULTILINE | re.DOTALL,
)
OPERATORS = {"<": operator.lt, "<=": operator.le, "==": operator.eq, ">=": operator.ge, ">": operator.gt}


def render(markdown: str, release: str) -> str:
    def choose(match: re.Match) -> str:
        wanted = match["version"]
        holds = OPERATORS[match["op"]](version_key(release, wanted.count(".") + 1), version_key(wanted))
        return match["then"] if holds else (match["else"] or "")

    return CONDITION.sub(choose, markdown)
