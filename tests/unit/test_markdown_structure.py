"""A page's structure: where a fence opens and closes, markers that text cannot close, and the
headings, title and sections of the prose, read as Python-Markdown reads them."""

from __future__ import annotations

import re

import markdown
import pytest

from handbook.markdown_structure import (
    FenceError,
    Heading,
    backtick_marker,
    fenced,
    fences,
    heading_id,
    headings,
    prose_lines,
    section_of_each_line,
    sections,
    shown_title,
    title_heading,
    title_of,
)

PAGE = [
    "# Tensors",  # 0
    "",
    "```python",
    "# a comment, not a heading",
    "## nor this",
    "```",
    "## Storage ##",  # 6
    "text",
    "### Strides",  # 8
    "#### Deeper",
    "##Views",  # 10
    "# Appendix",  # 11
    "after",
]


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


def test_headings_are_the_prose_s_with_their_levels_never_a_comment_in_a_fence():
    assert headings(PAGE) == [
        Heading(0, 1, "Tensors"),
        Heading(6, 2, "Storage"),
        Heading(8, 3, "Strides"),
        Heading(9, 4, "Deeper"),
        Heading(10, 2, "Views"),
        Heading(11, 1, "Appendix"),
    ]


def _as_markdown_reads_it(line: str) -> tuple[int, str] | None:
    html = markdown.markdown(line)
    heading = re.fullmatch(r"<h(\d)>(.*)</h\1>", html)
    return (int(heading[1]), heading[2]) if heading else None


@pytest.mark.parametrize(
    "line",
    [
        "# Title",
        "## Title ##",
        "##Title",
        "#hashtag",
        "### C#",
        "# a # b",
        "## Title ## x",
        "## Title ##   ",  # trailing space: the closing run is kept, as Python-Markdown keeps it
        "#\tTab",
        "####### seven",
        "#",
        "   # indented",
        "    # indented code",
        "plain text",
    ],
)
def test_a_heading_is_what_python_markdown_makes_a_heading(line):
    found = headings([line])
    assert ((found[0].level, found[0].title) if found else None) == _as_markdown_reads_it(line)


def test_a_page_s_headings_are_those_python_markdown_renders():
    page = "\n".join(PAGE) + "\n"
    html = markdown.markdown(page, extensions=["pymdownx.superfences"])
    rendered = [(int(level), title) for level, title in re.findall(r"<h(\d)>(.*?)</h\1>", html)]
    assert [(heading.level, heading.title) for heading in headings(PAGE)] == rendered


def test_the_title_is_the_first_level_one_heading_with_text():
    assert title_of(PAGE) == title_of("\n".join(PAGE)) == "Tensors"
    assert title_heading(["#", "", "# Named"]) == Heading(2, 1, "Named")
    assert title_of(["```python", "# set up", "```", "## Only a section"]) is None


def test_a_title_above_a_fence_never_closed_is_still_found():
    lines = ["# Above", "", "```python", "# inside"]
    assert title_of(lines) == "Above"
    assert title_of(["```python", "# inside"]) is None
    with pytest.raises(FenceError, match="line 3"):
        headings(lines)


def test_a_section_runs_to_the_next_heading_of_its_level_or_above():
    assert [(s.title, s.heading.line, s.end) for s in sections(PAGE)] == [("Storage", 6, 10), ("Views", 10, 11)]
    assert [(s.title, s.end) for s in sections(PAGE, level=1)] == [("Tensors", 11), ("Appendix", 13)]
    each = section_of_each_line(PAGE)
    assert each[:6] == [""] * 6  # before the first `##`: the comment in the fence is no section
    assert each[6:10] == ["Storage"] * 4  # `###` and `####` stay inside it
    assert each[10:] == ["Views", "", ""]  # a `#` ends it


def test_a_page_without_headings_has_no_title_and_no_section():
    lines = ["text", "```python", "## a comment", "```"]
    assert (title_of(lines), sections(lines), section_of_each_line(lines)) == (None, [], [""] * 4)


@pytest.mark.parametrize(
    "title",
    ["连续性与 `contiguous()` {#contiguity-and-contiguous}", "Views and `copies`", "A [link](x.md) &amp; <b>tag</b>"],
)
def test_a_headings_id_and_shown_title_are_those_python_markdown_renders(title):
    html = markdown.markdown(f"## {title}\n", extensions=["attr_list", "toc"])
    rendered = re.fullmatch(r'<h2 id="([^"]*)">(.*)</h2>', html)
    assert heading_id(title) == rendered[1]
    assert markdown.markdown(f"## {shown_title(title)}\n", extensions=["attr_list"]).endswith(f">{rendered[2]}</h2>")
