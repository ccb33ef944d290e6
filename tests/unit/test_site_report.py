"""`handbook.reports.site_report`: the "How this site is built" page, rendered from a run made
here (no page runs)."""

from __future__ import annotations

import re

from handbook.environment import RECORDED_PYTHON, Environment
from handbook.execution.blocks import Block, Page
from handbook.execution.page_state import PAGE_STATE
from handbook.execution.recordings import GpuRecording
from handbook.execution.results import BlockResult, SiteRun
from handbook.execution.status import Status
from handbook.markdown_structure import headings
from handbook.messages import Words
from handbook.reports.site_report import Provenance, render

# Synthetic data: a made-up Environment and GPU recording

ENV = Environment("2.15.0+cpu", "d0f2af8b66b20da4baa50644c0cd3f887a2eae2e", "3.11.9", "cpu")
TITLES = {"tensors.md": "Tensors", "autograd.md": "Autograd"}


def result(page: str, index: int, status: Status, seconds: float = 0.0, **options) -> BlockResult:
    block = Block(page, index, f"block-{index}", "print(1)", f"docs/{page}", index, index, options=options)
    return BlockResult(status, seconds=seconds, block=block)


def site(*results: BlockResult) -> SiteRun:
    by_page: dict[str, list[BlockResult]] = {}
    for one in results:
        by_page.setdefault(one.block.page, []).append(one)
    pages = [Page(path, tuple(r.block for r in page_results)) for path, page_results in by_page.items()]
    return SiteRun(ENV, pages, results=by_page)


def rows(page: str, section: str) -> list[str]:
    """The table rows (header and separator left out) of one `##` section."""
    text = page.split(f"\n## {section}\n", 1)[1].split("\n## ", 1)[0]
    return [line for line in text.splitlines() if line.startswith("|")][2:]


RUN = site(
    result("tensors.md", 1, Status.OK, 1.25),
    result("tensors.md", 2, Status.CACHED, 0.5),
    result("tensors.md", 3, Status.OK, 0.04),
    result("autograd.md", 1, Status.CACHED, 2.0),
    result("no-title.md", 1, Status.GPU_MISSING, device="cuda"),
)


def test_the_page_names_what_it_was_built_with_and_how_many_blocks():
    page = render(RUN, TITLES)
    assert page.startswith("# How this site is built\n\n")
    assert f"Outputs are recorded with Python {RECORDED_PYTHON};" in page
    for row in (
        "| torch | `2.15.0+cpu` |",
        "| commit | `d0f2af8b66b20da4baa50644c0cd3f887a2eae2e` |",
        "| Python | `3.11.9` |",
        "| device | `cpu` |",
        "| blocks | 5 |",
    ):
        assert row in page.splitlines()


def test_blocks_are_counted_by_status_each_with_its_meaning_in_the_order_of_their_names():
    assert rows(render(RUN, TITLES), "Blocks by status") == [
        f"| `cached` | 2 | {Status.CACHED.meaning} |",
        f"| `gpu-missing` | 1 | {Status.GPU_MISSING.meaning} |",
        f"| `ok` | 2 | {Status.OK.meaning} |",
    ]


def test_each_page_is_linked_by_its_title_with_its_blocks_and_seconds_in_page_order():
    assert rows(render(RUN, TITLES), "Pages") == [
        "| [Tensors](tensors.md) | 3 | 1.8 |",
        "| [Autograd](autograd.md) | 1 | 2.0 |",
        "| [no-title.md](no-title.md) | 1 | 0.0 |",  # a page without a title is named by its path
    ]


def test_the_machine_readable_report_is_linked_in_html_which_mkdocs_does_not_check():
    """The report is written after the build: a Markdown link to it would be a broken link to mkdocs."""
    page = render(RUN, TITLES)
    assert '<a href="../execution-report.json"><code>execution-report.json</code></a>' in page
    assert "](../execution-report.json)" not in page


def test_the_state_every_page_starts_in_is_shown_as_the_code_it_is():
    section = render(RUN, TITLES).split("\n## The state every page starts in\n", 1)[1]
    assert re.search(r"```python\n(.*?)\n```", section, re.DOTALL)[1] == PAGE_STATE


def test_gpu_only_blocks_are_listed_with_where_their_output_was_recorded():
    recorded = result("tensors.md", 1, Status.GPU_RECORDED, device="cuda")
    recorded.gpu = GpuRecording("NVIDIA H100 80GB HBM3", "2.15.0+cu132", "2025-06-01", "out\n")
    missing = result("autograd.md", 1, Status.GPU_MISSING, device="cuda")
    run = site(recorded, result("tensors.md", 2, Status.OK), missing)
    assert rows(render(run, TITLES), "GPU-only blocks") == [
        "| [Tensors](tensors.md) | `block-1` | NVIDIA H100 80GB HBM3, torch 2.15.0+cu132, 2025-06-01 |",
        "| [Autograd](autograd.md) | `block-1` | not recorded yet |",
    ]


def test_a_site_without_gpu_only_blocks_says_none():
    page = render(site(result("tensors.md", 1, Status.OK)), TITLES)
    assert page.endswith("\n## GPU-only blocks\n\nNone.\n")


def test_the_banner_and_the_page_say_every_cpu_block_ran_when_every_one_did():
    provenance = Provenance.of(RUN)
    assert (provenance.blocks, provenance.executed, provenance.recorded, provenance.gpu) == (5, 4, 0, 1)
    assert provenance.lead() == "Every example on this site but the 1 GPU-only one was executed with"
    assert "was executed: 2 in this build, 2 in an earlier build with identical code" in render(RUN, TITLES)
    executed = site(result("tensors.md", 1, Status.OK))
    assert Provenance.of(executed).lead() == "Every example on this site was executed with"


def test_a_render_only_preview_says_what_it_did_not_execute():
    preview = site(
        result("tensors.md", 1, Status.RECORDED),
        result("tensors.md", 2, Status.RECORDED),
        result("autograd.md", 1, Status.GPU_MISSING, device="cuda"),
    )
    provenance = Provenance.of(preview)
    assert provenance.preview
    assert provenance.lead() == (
        "Preview build: 2 of 3 examples were not executed here; they show the output recorded with"
    )
    page = render(preview, TITLES)
    assert "render-only preview (`HANDBOOK_EXECUTE=0`): 2 of 3 blocks were not executed" in page
    assert "was executed:" not in page


def test_in_chinese_the_page_has_chinese_headings_that_keep_the_english_anchor_ids():
    """The translated pages link to `how-this-site-is-built.md#the-state-every-page-starts-in`."""
    page = render(RUN, TITLES, "zh")
    assert [f"{'#' * h.level} {h.title}" for h in headings(page.splitlines())] == [
        "# 本站如何构建 {#how-this-site-is-built}",
        "## 各状态的代码块 {#blocks-by-status}",
        "## 各页面 {#pages}",
        "## 每个页面的初始状态 {#the-state-every-page-starts-in}",
        "## 仅限 GPU 的代码块 {#gpu-only-blocks}",
    ]
    assert f"| `ok` | 2 | {Words('zh')(Status.OK.meaning)} |" in page.splitlines()
    assert "| 提交 | `d0f2af8b66b20da4baa50644c0cd3f887a2eae2e` |" in page.splitlines()
    assert "本站的每个 CPU 代码块都已执行：2 个在本次构建中执行，2 个在之前" in page
    assert f"输出用 Python {RECORDED_PYTHON} 记录" in page


def test_in_chinese_the_banner_lead_is_chinese():
    assert Provenance.of(RUN).lead("zh") == "除 1 个仅限 GPU 的示例外，本站的每个示例都在以下环境中执行："
    preview = site(result("tensors.md", 1, Status.RECORDED), result("tensors.md", 2, Status.OK))
    assert Provenance.of(preview).lead("zh").startswith("预览构建：2 个示例中有 1 个未在此执行")


def test_the_chapters_notes_on_steady_outputs_are_shown_in_the_sites_language(tmp_path):
    from handbook.reports.site_report import stable_outputs

    (tmp_path / "notes").mkdir()
    (tmp_path / "notes" / "stable-outputs.md").write_text("### Memory\n\nSizes are measured.\n")
    (tmp_path / "notes" / "stable-outputs.zh.md").write_text("### 内存\n\n大小是测量值。\n")
    english = render(RUN, TITLES, "en", stable_outputs(tmp_path, "en"))
    section = english.split("\n## Stable outputs\n", 1)[1].split("\n## ", 1)[0]
    assert "### Memory\n\nSizes are measured." in section
    chinese = render(RUN, TITLES, "zh", stable_outputs(tmp_path, "zh"))
    assert "\n## 稳定的输出 {#stable-outputs}\n" in chinese and "### 内存" in chinese
    assert "Stable outputs" not in render(RUN, TITLES, "en", stable_outputs(tmp_path / "none", "en"))
