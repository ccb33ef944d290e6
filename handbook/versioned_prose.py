"""Prose that differs by torch release or by Python, written as HTML comments so the Markdown stays readable:

    <!-- if torch >= 2.14 -->
    Text for torch 2.14 and later.
    <!-- else -->
    Text for older releases.
    <!-- end if -->

`<!-- if python >= 3.13 -->` chooses by the Python the edition is built with.
Operators: `<`, `<=`, `==`, `>=`, `>`; versions compare part by part. Use it only
where a sentence would otherwise be wrong for one of the supported releases or Pythons.
"""

from __future__ import annotations

import operator
import re

from handbook.environment import RECORDED_PYTHON, version_key

CONDITION = re.compile(
    r"^<!-- if (?P<subject>torch|python) (?P<op><=|>=|==|<|>) (?P<version>[\d.]+) -->\n(?P<then>.*?)"
    r"(?P<otherwise>^<!-- else -->\n(?P<else>.*?))?(?P<end>^<!-- end if -->\n?)",
    re.MULTILINE | re.DOTALL,
)
OPERATORS = {"<": operator.lt, "<=": operator.le, "==": operator.eq, ">=": operator.ge, ">": operator.gt}


def holds(match: re.Match, release: str, python: str) -> bool:
    wanted = match["version"]
    actual = release if match["subject"] == "torch" else python
    return OPERATORS[match["op"]](version_key(actual, wanted.count(".") + 1), version_key(wanted))


def render(markdown: str, release: str, python: str = RECORDED_PYTHON) -> str:
    """The Markdown as the edition for `release`, built with `python`, shows it."""
    return CONDITION.sub(lambda m: m["then"] if holds(m, release, python) else (m["else"] or ""), markdown)


def render_keeping_lines(markdown: str, release: str, python: str = RECORDED_PYTHON) -> str:
    """Like `render`, with every line left out blanked, so that line numbers stay those of the source."""

    def blank(text: str | None) -> str:
        return "\n" * (text or "").count("\n")

    def choose(match: re.Match) -> str:
        if holds(match, release, python):
            return "\n" + match["then"] + blank(match["otherwise"]) + blank(match["end"])
        return "\n" + blank(match["then"]) + ("\n" + match["else"] if match["otherwise"] else "") + blank(match["end"])

    return CONDITION.sub(choose, markdown)
