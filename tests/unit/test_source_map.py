"""The Source map page: titles from each page's prose, citations grouped by chapter."""

from __future__ import annotations

from handbook.sources.source_map import title_of

# Synthetic data: the tag a source map is rendered for


def test_the_title_is_the_first_heading_of_the_prose_not_a_comment_in_a_code_fence():
    page = '```python exec="on"\n# set up the tensors\nimport torch\n```\n\n# Tensors and storage\n\n## Strides\n'
    assert title_of(page, "tensors.md") == "Tensors and storage"


def test_a_page_without_a_heading_is_named_by_its_path():
    assert title_of("Only prose.\n\n## A section\n", "notes.md") == "notes.md"


def test_a_closing_run_of_hashes_is_no_part_of_the_title():
    # as Python-Markdown renders `# Tensors #`; the page's own reading once kept "Tensors #"
    assert title_of("# Tensors #\n", "tensors.md") == "Tensors"


def test_a_title_above_a_fence_never_closed_is_still_found():
    assert title_of("# Tensors\n\n```python\n# not closed\n", "tensors.md") == "Tensors"


def test_in_chinese_the_page_and_its_table_are_chinese():
    from handbook.sources.links import Citation, Resolved
    from handbook.sources.source_map import render

    cited = Citation(
        Resolved("c10/core/TensorImpl.h", "c10/core/TensorImpl.h", "", None, None, "https://x"), "t.md", ""
    )
    page = render([cited], {"t.md": "张量"}, "v2.15.0", "zh")
    assert page.startswith("# 源码索引\n\n本手册链接到的每个 PyTorch 源码文件和符号，均对应标签 `v2.15.0`")
    assert (
        "| 源码 | 行 | 引用位置 |" in page
        and "| [`c10/core/TensorImpl.h`](https://x) | 整个文件 | [张量](t.md) |" in page
    )


def test_a_translated_section_is_linked_by_its_explicit_id_and_shown_without_it():
    from handbook.sources.links import Citation, Resolved
    from handbook.sources.source_map import render

    resolved = Resolved("c10/core/TensorImpl.h", "c10/core/TensorImpl.h", "", None, None, "https://x")
    sections = ["连续性与 `contiguous()` {#contiguity-and-contiguous}", "视图 {#views}"]
    page = render([Citation(resolved, "t.md", section) for section in sections], {"t.md": "张量"}, "v2.15.0", "zh")
    assert "| [视图](t.md#views), [连续性与 `contiguous()`](t.md#contiguity-and-contiguous) |" in page
