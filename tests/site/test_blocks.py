from __future__ import annotations

import re
from pathlib import Path

import pytest

from handbook.execution.blocks import BlockError, scan_docs, scan_page
from handbook.tree_files import TreeError

# Synthetic data: a directory under recordings/ where a symbolic link is refused (any release's is)


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
        ('```python exec="on"\nprint(1)\n', "docs/p.md:1: the fence opened at line 1 is never closed"),
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


def test_a_section_is_a_heading_python_markdown_reads_and_ends_at_a_level_one_heading(project):
    # `##Views` is an h2 to Python-Markdown; after `# Appendix` a block is in no `##` section
    # (the scan's own reading once kept the section before it)
    project.write(
        "docs/p.md",
        '# P\n\n##Views ##\n\n```python exec="on"\nprint(1)\n```\n\n# Appendix\n\n```python exec="on"\nprint(2)\n```\n',
    )
    assert [b.section for b in scan_page(project.root, "docs", "p.md").blocks] == ["Views", ""]


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
        # pymdownx.superfences reads only quoted values: unquoted, it would show the block as code, unrun
        ('```python exec="on" timeout=5', "pymdownx.superfences cannot read this fence's options"),
        ('```python exec="on" title=Demo', "pymdownx.superfences cannot read this fence's options"),
        # to superfences, `hl-lines="1"` is the options hl and lines="1"
        ('```python exec="on" hl-lines="1"', "unknown fence option hl= (known: "),
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


OUTSIDE = "print('outside the repository')\n"


@pytest.mark.parametrize(
    "include, message",
    [
        ("../outside.py", "included file '../outside.py' is outside the repository"),
        ("{outside}", "is outside the repository"),
        ("snippets/../../outside.py", "is outside the repository"),
    ],
)
def test_an_include_outside_the_repository_is_refused_before_anything_runs(project, include, message):
    outside = project.root.parent / "outside.py"
    outside.write_text(OUTSIDE)
    project.write("docs/p.md", f'# P\n\n```python exec="on"\n--8<-- "{include.format(outside=outside)}"\n```\n')
    with pytest.raises(TreeError, match=re.escape("docs/p.md:3 (block 1): included file ") + ".*" + message[-30:]):
        scan_page(project.root, "docs", "p.md")


@pytest.mark.parametrize(
    "page",
    [
        '# P\n\n```text\n--8<-- "../outside.py"\n```\n',  # shown, not run: pymdownx.snippets still reads it
        "# P\n\n--8<--\nsnippets/t/ok.py\n../outside.py\n--8<--\n",  # its block form
        '# P\n\n```text\n--8<-- "snippets/t/nested.py"\n```\n',  # an include of an include
    ],
)
def test_a_shown_include_outside_the_repository_is_refused(project, page):
    (project.root.parent / "outside.py").write_text(OUTSIDE)
    project.write("snippets/t/ok.py", "print(1)\n")
    project.write("snippets/t/nested.py", '--8<-- "../outside.py"\n')
    project.write("docs/p.md", page)
    with pytest.raises(TreeError, match=r"included file '\.\./outside\.py' is outside the repository"):
        scan_page(project.root, "docs", "p.md")


def test_an_escaped_or_source_include_is_not_a_file(project):
    project.write("docs/p.md", '# P\n\n```text\n;--8<-- "../outside.py"\n--8<-- "pytorch:c10/x.h#X"\n```\n')
    assert scan_page(project.root, "docs", "p.md").blocks == ()


@pytest.mark.parametrize(
    "where",
    [
        "snippets/t/x.py",
        "snippets/t",
        "docs/linked.md",
        "recordings/torch-2.13.0",
        # The translation's pages and the theme's templates are published too.
        "docs-zh/linked.md",
        "overrides/partials/linked.html",
    ],
)
def test_a_symlink_where_the_build_publishes_runs_or_writes_is_refused(project, where):
    (project.root.parent / "passwd").write_text("root:x:0:0::/root:/bin/bash\n")
    project.write("docs/p.md", '# P\n\n```python exec="on"\n--8<-- "snippets/t/x.py"\n```\n')
    link = project.root / where
    link.parent.mkdir(parents=True, exist_ok=True)
    link.symlink_to(project.root.parent / "passwd")
    with pytest.raises(TreeError, match=re.escape(f"symbolic link(s) in the repository: {where};")):
        scan_docs(project.root)


def test_an_include_through_a_symlink_anywhere_is_refused(project):
    (project.root.parent / "passwd").write_text("root:x:0:0::/root:/bin/bash\n")
    (project.root / "elsewhere").symlink_to(project.root.parent / "passwd")
    project.write("docs/p.md", '# P\n\n```text\n--8<-- "elsewhere"\n```\n')
    with pytest.raises(TreeError, match=r"docs/p.md:4: included file 'elsewhere': elsewhere is a symbolic link"):
        scan_page(project.root, "docs", "p.md")


@pytest.mark.parametrize("block_id", ["../../../X", "a/b", ".hidden", "-x", "x" * 101, "a b"])
def test_an_id_that_is_not_a_plain_name_is_refused(project, block_id):
    project.write("docs/p.md", f'# P\n\n```python exec="on" id="{block_id}"\nprint(1)\n```\n')
    with pytest.raises(BlockError, match=re.escape(f"docs/p.md:3 (block 1): block id {block_id!r} cannot name")):
        scan_page(project.root, "docs", "p.md")


def test_a_region_name_that_is_no_plain_name_is_refused_as_an_id(project):
    project.write("snippets/t/x.py", "print(1)\n")
    project.write("docs/p.md", '# P\n\n```python exec="on"\n--8<-- "snippets/t/x.py:1:1"\n```\n')
    assert scan_page(project.root, "docs", "p.md").blocks[0].id == "x-1:1"  # a line range: still a plain name


@pytest.mark.parametrize("where", ["docs/p.md", "snippets/t/x.py"])
def test_bytes_that_are_not_utf8_name_the_file(project, where):
    project.write("docs/p.md", '# P\n\n```python exec="on"\n--8<-- "snippets/t/x.py"\n```\n')
    project.write("snippets/t/x.py", "print(1)\n")
    (project.root / where).write_bytes(b"# caf\xe9\n" + (project.root / where).read_bytes())
    with pytest.raises(TreeError, match=re.escape(where) + r": not UTF-8 text \(byte 0xe9 at offset 5\)"):
        scan_page(project.root, "docs", "p.md")


def test_a_fence_with_an_attribute_list_is_a_block_too(project):
    project.write("docs/p.md", '# P\n\n``` { .python exec="on" timeout="7" }\nprint(1)\n```\n')
    (block,) = scan_page(project.root, "docs", "p.md").blocks
    assert block.code == "print(1)" and block.options["timeout"] == "7"


def test_a_whole_file_loses_the_region_markers_pymdownx_snippets_removes_and_only_those(project):
    project.write(
        "snippets/t/marks.py",
        "# -8<- [start:short]\na = 1\n# -8<- [end:short]\n#--8<--[start:tight]\nb = 2\n# ;--8<-- [start:escaped]\n",
    )
    project.write("docs/p.md", '# P\n\n```python exec="on"\n--8<-- "snippets/t/marks.py"\n```\n')
    (block,) = scan_page(project.root, "docs", "p.md").blocks
    assert block.code == "a = 1\n#--8<--[start:tight]\nb = 2\n# --8<-- [start:escaped]"


def _as_snippets_shows(markdown: str, root: Path) -> str:
    """What pymdownx.snippets itself makes of `markdown`, with the scan's options, from `root`."""
    import markdown as markdown_module
    from pymdownx.snippets import SnippetExtension, SnippetPreprocessor

    from handbook.execution.blocks import SNIPPETS

    config = {key: value[0] for key, value in SnippetExtension().config.items()}
    config.update(SNIPPETS, base_path=[str(root)])
    return "\n".join(SnippetPreprocessor(config, markdown_module.Markdown()).run(markdown.splitlines())) + "\n"


def test_block_form_includes_expand_as_on_the_page(project):
    """Between two bare `--8<--` lines, each line names a file: each is shown, the markers are not."""
    from handbook.execution.blocks import expand_includes

    project.write("snippets/t/x.cpp", "// --8<-- [start:body]\n    int x = 1;\n// --8<-- [end:body]\n")
    project.write("snippets/t/y.cpp", "// --8<-- [start:tail]\nint y = 2;\n// --8<-- [end:tail]\n")
    markdown = (
        "# P\n\n```cpp\n--8<--\nsnippets/t/x.cpp:body\n\n;snippets/t/skipped.cpp\nsnippets/t/y.cpp:tail\n--8<--\n```\n"
    )
    expanded = expand_includes(markdown, project.root, "docs/p.md")
    assert expanded == "# P\n\n```cpp\nint x = 1;\n\nint y = 2;\n```\n"
    assert expanded == _as_snippets_shows(markdown, project.root)


def test_a_block_form_include_never_closed_is_refused_naming_page_and_line(project):
    from handbook.execution.blocks import BlockError, expand_includes

    project.write("snippets/t/y.cpp", "int y = 2;\n")
    with pytest.raises(BlockError, match=r"^docs/p.md:3: a block-form include \('--8<--'\) is never closed"):
        expand_includes("# P\n\n--8<--\nsnippets/t/y.cpp\n", project.root, "docs/p.md")


def test_an_executed_block_of_a_block_form_include_is_refused_naming_page_and_line(project):
    project.write("snippets/p/a.py", "print(1)\n")
    project.write("docs/p.md", '# P\n\n```python exec="on"\n--8<--\nsnippets/p/a.py\n--8<--\n```\n')
    with pytest.raises(BlockError, match=r"^docs/p.md:3 \(block 1\): .*block-form include.*--8<-- \"snippets/p/a.py\""):
        scan_page(project.root, "docs", "p.md")
