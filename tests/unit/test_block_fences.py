"""Fences the block scan (handbook/execution/blocks.py) reads without a build: figure blocks, python
under another name, other languages shown as code. With a build: tests/site/test_blocks.py."""

from __future__ import annotations

import pytest

from handbook.execution.blocks import BlockError, scan_page

ALT = 'alt="Two segments, the second half free"'


@pytest.mark.parametrize(
    "options, message",
    [
        ('figure="s.svg"', "figure='s.svg' has no alt=\"...\""),
        ('figure="s.svg" alt=" "', "figure='s.svg' has no alt=\"...\""),
        ('figure="s.svg" alt="s.svg"', "does not say what the figure shows"),
        ('figure="s.svg" alt="a plot"', "does not say what the figure shows"),
        (ALT, "alt= describes a figure, and the block declares none"),
        (f'figure="../s.svg" {ALT}', "figure='../s.svg' is not a file name ending in .svg"),
        (f'figure="s.png" {ALT}', "figure='s.png' is not a file name ending in .svg"),
        (f'figure=".s.svg" {ALT}', "is not a file name ending in .svg"),
        (f'figure="s.svg" device="cuda" {ALT}', "figure= on a GPU-only block"),
    ],
)
def test_a_figure_fence_is_checked_naming_page_line_and_block(tmp_path, options, message):
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs/p.md").write_text(
        f'# P\n\n```python exec="on"\nprint(0)\n```\n\n```python exec="on" {options}\nprint(1)\n```\n'
    )
    with pytest.raises(BlockError) as raised:
        scan_page(tmp_path, "docs", "p.md")
    assert str(raised.value).startswith("docs/p.md:7 (block 2): ") and message in str(raised.value)


def test_a_figure_block_knows_its_file_and_alt_and_two_blocks_cannot_draw_one_file(tmp_path):
    (tmp_path / "docs").mkdir()
    fence = f'```python exec="on" figure="s.svg" {ALT}\nprint(1)\n```\n'
    (tmp_path / "docs/p.md").write_text(f"# P\n\n{fence}")
    [block] = scan_page(tmp_path, "docs", "p.md").blocks
    assert (block.figure, block.alt) == ("s.svg", "Two segments, the second half free")
    (tmp_path / "docs/p.md").write_text(f"# P\n\n{fence}\n{fence}")
    with pytest.raises(BlockError, match=r"docs/p.md:7 \(block 2\): figure='s.svg' is drawn by two blocks"):
        scan_page(tmp_path, "docs", "p.md")


@pytest.mark.parametrize(
    "fence",
    ['```python3 exec="on"', "```Python", "```pycon", "```py3", '```PY exec="on"', "``` python3", "~~~ipython"]
    + ['```{.python3 exec="on"}'],
)
def test_a_fence_of_python_under_another_name_fails_rather_than_show_code_no_build_ran(tmp_path, fence):
    closing = fence[:3]
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs/p.md").write_text(f"# P\n\n{fence}\n>>> print(1)\n1\n{closing}\n")
    with pytest.raises(BlockError, match=r"docs/p\.md:3 \(block 1\): a fence of '.*' shows Python that no build"):
        scan_page(tmp_path, "docs", "p.md")


def test_other_languages_are_shown_as_code(tmp_path):
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs/p.md").write_text("# P\n\n```text\n>>> print(1)\n```\n\n```cpp\nint x;\n```\n")
    assert scan_page(tmp_path, "docs", "p.md").blocks == ()
