from __future__ import annotations

import re

import pytest

from handbook.execution.blocks import BlockError, scan_page


def test_blocks_know_their_origin_and_id(project):
    project.write(
        "snippets/t/x.py", "import torch\n\n# --8<-- [start:views]\n    a = 1\n    print(a)\n# --8<-- [end:views]\n"
    )
    project.write(
        "docs/p.md",
        '# P\n\n```python exec="on"\nprint(1)\n```\n\n```python exec="on" timeout="5"\n--8<-- '
        '"snippets/t/x.py:views"\n```\n\n```python exec="on" id="named"\nprint(2)\n```\n\n```text\nnot run\n```\n',
    )
    page = scan_page(project.root, "docs", "p.md")
    assert [(b.id, b.origin) for b in page.blocks] == [
        ("block-1", "docs/p.md:4"),
        ("x-views", "snippets/t/x.py:4"),
        ("named", "docs/p.md:12"),
    ]
    assert page.blocks[1].code == "a = 1\nprint(a)"  # dedented like pymdownx.snippets
    assert page.blocks[1].options["timeout"] == "5"


def test_indented_fence_in_admonition(project):
    project.write("docs/p.md", '# P\n\n!!! note\n    ```python exec="on"\n    print(1)\n    ```\n')
    assert scan_page(project.root, "docs", "p.md").blocks[0].code == "print(1)"


@pytest.mark.parametrize(
    "page, message",
    [
        ("```python\nprint(1)\n```\n", 'docs/p.md:1 (block 1): a python fence without exec="on"'),
        (
            '```python exec="on"\n--8<-- "snippets/none.py:a"\n```\n',
            "docs/p.md:1 (block 1): included file 'snippets/none.py' does not exist",
        ),
        (
            '```python exec="on"\nprint(1)\n--8<-- "snippets/t/x.py:a"\n```\n',
            "either one '--8<--' include or inline code",
        ),
        (
            '```python exec="on" id="a"\nprint(1)\n```\n```python exec="on" id="a"\nprint(1)\n```\n',
            "block id 'a' is used twice",
        ),
        ('```python exec="on"\nprint(1)\n', "fence is never closed"),
    ],
)
def test_bad_pages_name_the_place(project, page, message):
    project.write("snippets/t/x.py", "# --8<-- [start:a]\nprint(1)\n# --8<-- [end:a]\n")
    project.write("docs/p.md", page)
    with pytest.raises(BlockError, match=message.replace("(", r"\(").replace(")", r"\)")):
        scan_page(project.root, "docs", "p.md")


def test_missing_region_names_the_expected_markers(project):
    project.write("snippets/t/x.py", "print(1)\n")
    project.write("docs/p.md", '```python exec="on"\n--8<-- "snippets/t/x.py:gone"\n```\n')
    with pytest.raises(
        BlockError, match=r"region 'gone' not found in snippets/t/x.py \(expected '# --8<-- \[start:gone\]'"
    ):
        scan_page(project.root, "docs", "p.md")


def test_blocks_know_their_section(project):
    project.write(
        "docs/p.md",
        '# P\n\n```python exec="on"\nprint(0)\n```\n\n## Views and copies\n\n```python exec="on"\nprint(1)\n## a '
        'comment, not a heading\n```\n\n### Detail\n\n```python exec="on"\nprint(2)\n```\n',
    )
    assert [b.section for b in scan_page(project.root, "docs", "p.md").blocks] == [
        "",
        "Views and copies",
        "Views and copies",
    ]


def test_includes_expand_as_on_the_page(project):
    from handbook.execution.blocks import expand_includes

    project.write("snippets/t/x.cpp", "// --8<-- [start:body]\n    int x = 1;\n// --8<-- [end:body]\n")
    markdown = '```cpp\n--8<-- "snippets/t/x.cpp:body"\n```\n\n--8<-- "pytorch:c10/core/TensorImpl.h#TensorImpl"\n'
    assert (
        expand_includes(markdown, project.root, "docs/p.md")
        == '```cpp\nint x = 1;\n```\n\n--8<-- "pytorch:c10/core/TensorImpl.h#TensorImpl"\n'
    )


def test_line_ranges_as_pymdownx_snippets_reads_them(project):
    project.write("snippets/t/x.py", "import torch\n\nx = 1\nprint(x)\ny = 2\n")
    project.write(
        "docs/p.md",
        '```python exec="on"\n--8<-- "snippets/t/x.py:3:4"\n```\n\n```python exec="on" id="tail"\n--8<-- '
        '"snippets/t/x.py:-1:"\n```\n',
    )
    first, last = scan_page(project.root, "docs", "p.md").blocks
    assert (first.code, first.origin) == ("x = 1\nprint(x)", "snippets/t/x.py:3")
    assert (last.code, last.origin) == ("y = 2", "snippets/t/x.py:5")


@pytest.mark.parametrize(
    "fence, message",
    [
        (
            '```python exec="on" session="a"',
            "the fence option session= is not supported here: every block of a page already runs",
        ),
        (
            '```python exec="on" html="1"',
            "the fence option html= is not supported here: outputs are recorded and shown as text",
        ),
        ('```python exec="on" timout="5"', "unknown fence option timout= (known: "),
    ],
)
def test_an_option_that_would_be_dropped_fails_the_scan(project, fence, message):
    project.write("docs/p.md", f"# P\n\n{fence}\nprint(1)\n```\n")
    with pytest.raises(BlockError, match=re.escape(f"docs/p.md:3 (block 1): {message}")):
        scan_page(project.root, "docs", "p.md")


def test_several_line_ranges_are_refused_for_an_executed_block(project):
    project.write("snippets/t/x.py", "a = 1\nb = 2\nc = 3\n")
    project.write("docs/p.md", '```python exec="on"\n--8<-- "snippets/t/x.py:1:1,3:3"\n```\n')
    with pytest.raises(BlockError, match="names several line ranges"):
        scan_page(project.root, "docs", "p.md")
