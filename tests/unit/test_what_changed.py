"""What changed: blocks under their chapter and section, and a note on each changed block linking to its entry."""

from __future__ import annotations

# Synthetic data: two releases compared in a temporary tree (a build's own release reads INSTALLED)


def test_a_measured_value_alone_is_no_change_and_a_long_diff_is_quick(tmp_path):
    import time

    from handbook.execution.blocks import Block, Page
    from handbook.execution.recordings import Recordings
    from handbook.reports.what_changed import changed_blocks, compare

    measured, long = (Block("demo.md", n, name, "", "docs/demo.md", n, n) for n, name in ((1, "ratio"), (2, "long")))
    pages = [Page("demo.md", (measured, long))]
    for release, value, modulus in (("2.12.0", "1.00", 150), ("2.13.0", "1.70", 149)):
        recordings = Recordings(tmp_path, release)
        recordings.write(measured, f"ratio: {value}x (measured; claim: between 0.5 and 2)")
        recordings.write(long, "\n".join(str(i % modulus) for i in range(30_000)))  # ~128 KiB, differing throughout
    started = time.perf_counter()
    page = compare(tmp_path, "2.12.0", "2.13.0", pages, {"demo.md": "Demo"})
    assert time.perf_counter() - started < 5  # difflib over the whole outputs took a minute
    assert "**1 differ**" in page and "ratio" not in page and "diff cut" in page
    assert set(changed_blocks(tmp_path, "2.13.0", pages)) == {long}


def test_an_output_holding_a_fence_stays_inside_its_diff(tmp_path):
    import markdown

    from handbook.execution.blocks import Block, Page
    from handbook.execution.recordings import Recordings
    from handbook.markdown_structure import fences
    from handbook.reports.what_changed import compare

    block = Block("demo.md", 1, "fence", "", "docs/demo.md", 1, 1)
    for release, value in (("2.12.0", "old"), ("2.13.0", "new")):
        Recordings(tmp_path, release).write(block, f"```\n{value}\n````````\n<script>alert(7)</script>\n```")
    page = compare(tmp_path, "2.12.0", "2.13.0", [Page("demo.md", (block,))], {"demo.md": "Demo"})
    lines = page.splitlines()
    [diff] = fences(lines)  # as the source links and the prose checks read the page: one fence, closed
    assert lines[diff.last + 1 :] == [
        "",
        "</div>",
        "",
        "### Source anchors",
        "",
        "No anchors are recorded for one of the releases.",
    ]
    html = markdown.Markdown(extensions=["attr_list", "md_in_html", "pymdownx.superfences"]).convert(page)
    assert "<script>" not in html and "&lt;script&gt;alert(7)&lt;/script&gt;" in html
    assert "-old" in html and "+new" in html and "````````" in html


def test_in_chinese_the_generated_comparison_is_chinese(tmp_path):
    from handbook.execution.blocks import Block, Page
    from handbook.execution.recordings import Recordings
    from handbook.reports.what_changed import compare

    block = Block("demo.md", 1, "b", "", "docs/demo.md", 1, 1, section="视图 {#views}")  # a translation keeps ids
    for release, value in (("2.12.0", "old"), ("2.13.0", "new")):
        Recordings(tmp_path, release).write(block, value)
    page = compare(tmp_path, "2.12.0", "2.13.0", [Page("demo.md", (block,))], {"demo.md": "演示"}, "zh")
    assert page.startswith("在 1 项记录的输出中，有 **1 项**在 torch 2.12.0 与 torch 2.13.0 之间不同。\n")
    assert "[第 1 个代码块（在页面中查看）](demo.md#block-b)，源自 `docs/demo.md:1`：" in page
    assert "### 源码锚点\n\n其中一个 torch 版本没有记录源码锚点。" in page and "\n**视图**\n" in page
    assert compare(tmp_path, "2.11.0", "2.13.0", [], {}, "zh") == (
        '!!! note "注意"\n    暂无可比较的内容：torch 2.11.0 还没有记录的输出。\n'
    )
