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

CONDITION = re.compile(
    r"^<!-- if torch (?P<op><=|>=|==|<|>) (?P<version>[\d.]+) -->\n(?P<then>.*?)(?:^<!-- else -->\n(?P<else>.*?))?^<!-- end if -->\n?",
    re.MULTILINE | re.DOTALL,
)
OPERATORS = {"<": operator.lt, "<=": operator.le, "==": operator.eq, ">=": operator.ge, ">": operator.gt}


def _key(version: str, parts: int) -> tuple[int, ...]:
    numbers = [int(p) for p in re.findall(r"\d+", version.split("+")[0])][:parts]
    return tuple(numbers)


def render(markdown: str, release: str) -> str:
    def choose(match: re.Match) -> str:
        wanted = match["version"]
        holds = OPERATORS[match["op"]](_key(release, wanted.count(".") + 1), _key(wanted, 3))
        return match["then"] if holds else (match["else"] or "")

    return CONDITION.sub(choose, markdown)
