"""The one fence rule: where a fence opens and closes, and markers that text cannot close."""

from __future__ import annotations

import pytest

from handbook.fences import FenceError, backtick_marker, fenced, fences, prose_lines


def test_a_fence_closes_at_a_run_of_its_character_at_least_as_long_at_any_indent():
    lines = ["text", '    ````python exec="on"', "    ```", "    print(1)", "    `````", "after", "~~~", "x", "~~~"]
    found = fences(lines)
    assert [(f.first, f.last, f.indent, f.lang) for f in found] == [(1, 4, "    ", "python"), (6, 8, "", "")]
    assert found[0].body(lines) == ["```", "print(1)"]
    assert prose_lines(lines) == [True, False, False, False, False, True, False, False, False]


def test_a_fence_never_closed_names_its_opening_line():
    with pytest.raises(FenceError, match="the fence opened at line 2 is never closed"):
        fences(["text", "```python", "print(1)"])


@pytest.mark.parametrize("text", ["plain", "a ``` b", "````````\n<script>", "`x` and ``y``"])
def test_fenced_text_cannot_end_its_own_fence(text):
    block = fenced(text, "text")
    marker = block.split("\n", 1)[0].removesuffix("text")
    assert len(marker) >= 3 and all(len(run) < len(marker) for run in text.split() if set(run) == {"`"})
    assert fences(block.splitlines()) and fences(block.splitlines())[0].last == len(block.splitlines()) - 1


def test_a_code_span_marker_is_longer_than_every_run_inside():
    assert backtick_marker("a `b` c", shortest=1) == "``"
    assert backtick_marker("no backticks", shortest=1) == "`"
