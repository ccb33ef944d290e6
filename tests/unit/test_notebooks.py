"""Each chapter's notebook: right for its edition, and its cells the blocks the strict build ran,
printing what the recordings say."""

from __future__ import annotations

import ast
import threading
from pathlib import Path

import nbformat
import pytest
from chapter_notebooks import PAGES, cell_output, notebook_for, own_and_block_cells
from IPython.core.displayhook import DisplayHook
from markdown_it import MarkdownIt

from handbook.environment import installed_torch
from handbook.execution.blocks import Block, Page
from handbook.execution.page_state import PAGE_STATE
from handbook.execution.recordings import Recordings
from handbook.mkdocs_config import load_site_config
from handbook.notebooks import (
    INSTALL_TAG,
    chapter_notebook,
    colab_url,
    install_command,
    link_base,
    page_url,
    site_link,
    value_not_shown,
    with_notebook_links,
    with_site_links,
    write,
)

# Synthetic data: the torch versions notebooks and their links are made for

REPO = Path(__file__).resolve().parents[2]


def test_notebook_opens_with_a_pinned_install_and_a_check():
    page = next(p for p in PAGES if p.path == "tensors.md")
    notebook = notebook_for(page)
    install, check = notebook.cells[0], notebook.cells[1]
    assert install.metadata["tags"] == [INSTALL_TAG]
    assert (
        f"%pip install --quiet {install_command(installed_torch().version).removeprefix('pip install ')}"
        in install.source
    )
    assert f'!= "{installed_torch().release}"' in check.source and "raise RuntimeError" in check.source
    nbformat.validate(notebook)


def shows_a_value(code: str) -> bool:
    """Whether a kernel would show a value after running `code` (an `execute_result`), by IPython's
    rules: it shows the value of the cell's last statement where that is an expression (a `print`'s is
    None, never shown), unless the cell ends in `;` (IPython's own test of that)."""
    body = ast.parse(code).body
    last = body[-1] if body else None
    if not isinstance(last, ast.Expr):
        return False
    call = last.value
    printed = isinstance(call, ast.Call) and isinstance(call.func, ast.Name) and call.func.id == "print"
    return not printed and not DisplayHook.semicolon_at_end_of_expression(code)


@pytest.mark.parametrize("page", PAGES, ids=lambda page: page.path)
def test_the_notebook_is_its_own_cells_then_the_blocks_the_build_ran_printing_their_recordings(page):
    """A kernel running these cells would run what the strict build ran: each block's cell is the
    block's program (comments aside: a GPU block's note), in page order, and the page process runs
    a page's blocks in order in one namespace, as a kernel does. The build failed on any output that
    differs from its recording (tests/site/test_examples.py asserts this tree's verdicts), and each
    cell shows that recording and no value the page does not. What a kernel adds is run in one:
    the notebook's own cells, and one chapter top to bottom (tests/site/test_notebooks_run.py)."""
    (install, guard, state), blocks = own_and_block_cells(notebook_for(page))
    assert INSTALL_TAG in install.metadata["tags"]
    assert guard.source.startswith("import torch\n") and state.source == PAGE_STATE
    assert len(blocks) == len(page.blocks)
    pairs = list(zip(page.blocks, blocks, strict=True))
    other_program = [b.id for b, cell in pairs if ast.dump(ast.parse(cell.source)) != ast.dump(ast.parse(b.code))]
    assert other_program == [], f"cells that are not their block's program: {other_program}"
    recordings = Recordings(REPO, installed_torch().release)
    other_output = [
        b.id
        for b, cell in pairs
        if b.device != "cuda" and cell_output(cell).removesuffix("\n") != (recordings.read(b) or "")
    ]
    assert other_output == [], f"cells that do not print their block's recording: {other_output}"
    shown = [b.id for b, cell in pairs if shows_a_value(cell.source)]
    assert shown == [], f"cells that show a value the page does not: {shown}"


def test_install_command_installs_the_recorded_build():
    assert install_command("2.13.0+cpu") == "pip install torch==2.13.0 --index-url https://download.pytorch.org/whl/cpu"
    assert install_command("2.15.0+cu132") == "pip install torch==2.15.0"


def test_a_quoted_value_is_text_in_the_notebook_too():
    from handbook.prose.quotes import resolve_quotes

    output = "value: [x](javascript:alert(1)) <img src=x onerror=alert(1)> *b*"
    markdown = 'It prints <!-- out b /value: (.*)/ -->.\n\n```python exec="on"\nprint(1)\n```\n'
    quoted = resolve_quotes(markdown, "demo.md", lambda page, block: output, "docs")
    block = Block("demo.md", 1, "b", "print(1)", "docs/demo.md", 4, 3)
    notebook = chapter_notebook(quoted.markdown, Page("demo.md", (block,)), {"b": output}, "2.13.0", lambda t: t)
    [prose] = [cell.source for cell in notebook.cells if cell.cell_type == "markdown"]
    html = MarkdownIt("commonmark").render(prose)  # as Jupyter renders a Markdown cell: CommonMark
    assert "<img" not in html and "<a" not in html and "<em>" not in html
    assert "It prints [x](javascript:alert(1)) &lt;img src=x onerror=alert(1)&gt; *b*." in html


def test_a_figure_is_the_cells_display_data_with_its_alt_text():
    block = Block("demo.md", 1, "b", "print(1)", "docs/demo.md", 4, 3, options={"figure": "b.svg", "alt": "A bar."})
    svg = '<svg xmlns="http://www.w3.org/2000/svg" />\n'
    markdown = '# Demo\n\n```python exec="on" figure="b.svg" alt="A bar."\nprint(1)\n```\n'
    notebook = chapter_notebook(markdown, Page("demo.md", (block,)), {"b": "1"}, "2.13.0", lambda t: t, {"b": svg})
    [cell] = [cell for cell in notebook.cells if cell.cell_type == "code" and cell.source == "print(1)"]
    assert [o.output_type for o in cell.outputs] == ["stream", "display_data"]
    assert cell.outputs[1].data == {"image/svg+xml": svg, "text/plain": "A bar."}
    # The code that draws it folded, as on the page (JupyterLab and Notebook 7; Colab).
    assert cell.metadata["jupyter"] == {"source_hidden": True} and cell.metadata["cellView"] == "form"
    nbformat.validate(notebook)


def test_two_builds_writing_one_notebook_at_once_never_collide(tmp_path):
    """`make build` beside `make serve` writes the same edition's notebooks: each write is whole,
    through a temporary file of its own (one shared `.ipynb.tmp` made the second rename fail)."""
    path = tmp_path / "notebooks" / "chapter.ipynb"
    texts = [nbformat.v4.new_notebook(cells=[nbformat.v4.new_markdown_cell(f"build {n}")]) for n in range(2)]
    failures: list[BaseException] = []

    def build(notebook):
        try:
            for _ in range(200):
                write(notebook, path)
        except BaseException as failure:  # noqa: BLE001  (reported by the assertion below)
            failures.append(failure)

    threads = [threading.Thread(target=build, args=(notebook,)) for notebook in texts]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert failures == []
    assert nbformat.read(path, as_version=4).cells[0].source in {"build 0", "build 1"}
    assert [p.name for p in path.parent.iterdir()] == ["chapter.ipynb"]


def test_the_notebook_links_go_under_the_pages_title_not_under_a_comment_in_code():
    page = '```python exec="on"\n# not the title\nprint(1)\n```\n\n#Title\n\nText.\n'
    shown = with_notebook_links(page, "../notebooks/ch.ipynb", None)
    lines = shown.splitlines()
    assert lines.index("#Title") < next(i for i, line in enumerate(lines) if "handbook-notebook-links" in line)
    assert "Open in Colab" not in shown
    assert with_notebook_links("No heading.\n", "n/", "https://colab").startswith('<p class="handbook-')


def test_the_chapter_offers_its_notebook_file_and_colab_under_the_title():
    shown = with_notebook_links("# Autograd\n\nText.\n", "../notebooks/autograd.ipynb", "https://colab/x")
    lines = shown.splitlines()
    assert lines[0] == "# Autograd"
    assert lines[2] == (
        '<p class="handbook-notebook-links"><a class="handbook-notebook" href="../notebooks/autograd.ipynb" download>'
        'Download notebook</a> · <a class="handbook-colab" href="https://colab/x">Open in Colab</a></p>'
    )


def test_colab_opens_the_notebook_where_the_published_site_has_it():
    """mike publishes each edition under `<minor>/` on gh-pages; the site has the file at notebooks/."""
    url = colab_url("https://github.com/owner/handbook", "2.13.0+cpu", "autograd.md")
    assert url == "https://colab.research.google.com/github/owner/handbook/blob/gh-pages/2.13/notebooks/autograd.ipynb"
    assert colab_url("https://github.com/owner/handbook/", "2.15.0", "a/b.md").endswith("/2.15/notebooks/a-b.ipynb")
    assert colab_url("https://gitlab.com/owner/handbook", "2.13.0", "autograd.md") is None
    assert colab_url(None, "2.13.0", "autograd.md") is None


def test_pages_are_addressed_as_mkdocs_addresses_them():
    assert page_url("tensors.md") == "tensors/"
    assert page_url("index.md") == ""
    assert page_url("guide/index.md") == "guide/"
    assert page_url("guide/a.md") == "guide/a/"


BASE = "https://site.example/handbook/2.13/"


def test_notebook_links_lead_to_the_published_chapter_pages():
    assert site_link("tensors.md#views-and-copies", "autograd.md", BASE) == BASE + "tensors/#views-and-copies"
    assert site_link("what-changed.md", "autograd.md", BASE) == BASE + "what-changed/"
    assert site_link("index.md", "autograd.md", BASE) == BASE
    # An anchor of the page itself: the chapter page's heading ids, which the notebook's differ from.
    assert site_link("#the-graph", "autograd.md", BASE) == BASE + "autograd/#the-graph"
    assert site_link("../a.md#x", "guide/b.md", BASE) == BASE + "a/#x"
    assert site_link("assets/figure.png", "autograd.md", BASE) == BASE + "assets/figure.png"
    assert site_link("<tensors.md#x>", "autograd.md", BASE) == f"<{BASE}tensors/#x>"
    for kept in ("https://pytorch.org/docs/", "mailto:a@b.c", "/elsewhere/", "../outside.md"):
        assert site_link(kept, "autograd.md", BASE) == kept


def test_links_are_rewritten_in_prose_only():
    markdown = (
        'See [views](tensors.md#views-and-copies), [here](#the-graph "title") and ![a](assets/a.png).\n'
        "`[code](tensors.md)` stays, [PyTorch](https://pytorch.org) too.\n\n"
        "```text\n[in a fence](tensors.md)\n```\n\n[ref]: memory.md#the-cuda-caching-allocator\n"
    )
    shown = with_site_links(markdown, "autograd.md", BASE)
    assert shown == (
        f'See [views]({BASE}tensors/#views-and-copies), [here]({BASE}autograd/#the-graph "title") and '
        f"![a]({BASE}assets/a.png).\n"
        "`[code](tensors.md)` stays, [PyTorch](https://pytorch.org) too.\n\n"
        "```text\n[in a fence](tensors.md)\n```\n\n"
        f"[ref]: {BASE}memory/#the-cuda-caching-allocator\n"
    )


def test_the_link_base_is_the_editions_published_site_or_relative_without_one():
    assert link_base("https://site.example/handbook/", "2.13.0+cpu") == BASE
    assert link_base("https://site.example/handbook", "2.13.0") == BASE
    # `mkdocs serve` serves one edition at the site's root, without mike's version directory.
    assert link_base("http://127.0.0.1:8000/", "2.13.0", serving=True) == "http://127.0.0.1:8000/"
    # No site_url: relative to the notebook's place in the site (notebooks/), where the chapters are.
    assert link_base(None, "2.13.0") == "../"
    assert site_link("tensors.md#x", "autograd.md", link_base(None, "2.13.0")) == "../tensors/#x"
    assert site_link("#x", "autograd.md", "../") == "../autograd/#x"


def test_the_site_url_is_read_as_mkdocs_reads_it(tmp_path, monkeypatch):
    config = tmp_path / "mkdocs.yml"
    (tmp_path / "docs").mkdir()
    config.write_text('site_name: t\nsite_url: !ENV [HANDBOOK_TEST_SITE_URL, "https://default.example/h/"]\n')
    monkeypatch.delenv("HANDBOOK_TEST_SITE_URL", raising=False)
    assert load_site_config(config).site_url == "https://default.example/h/"
    monkeypatch.setenv("HANDBOOK_TEST_SITE_URL", "http://127.0.0.1:8000/")
    assert load_site_config(config).site_url == "http://127.0.0.1:8000/"
    config.write_text("site_name: t\n")
    assert load_site_config(config).site_url is None


def test_in_chinese_the_links_and_the_comments_the_build_adds_are_chinese():
    shown = with_notebook_links("# 自动微分\n\n正文。\n", "../notebooks/autograd.ipynb", "https://colab/x", "zh")
    assert ">下载笔记本</a> · <a" in shown and ">在 Colab 中打开</a>" in shown
    block = Block("demo.md", 1, "b", "print(1)", "docs/demo.md", 4, 3, options={"device": "cuda"})
    markdown = '# 演示\n\n```python exec="on" device="cuda"\nprint(1)\n```\n'
    notebook = chapter_notebook(markdown, Page("demo.md", (block,)), {}, "2.13.0", lambda t: t, language="zh")
    assert notebook.cells[0].source.startswith("# 下面的输出是用 torch 2.13.0 记录的。")
    assert (
        notebook.cells[-1].source
        == "# 仅限 GPU：需要 CUDA。在 Colab 中请选择 GPU 运行时（代码执行程序 > 更改运行时类型）。\nprint(1)"
    )


@pytest.mark.parametrize(
    "code, cell",
    [
        ("x = 1\nx + 1", "x = 1\nx + 1;"),  # Jupyter would show 2; the page shows nothing
        ("f(a,\n  b)  # a comment", "f(a,\n  b);  # a comment"),
        ("'字' + s", "'字' + s;"),  # offsets in bytes, the line in characters
        ("t.add_(1);", "t.add_(1);"),
        ("print(1)", "print(1)"),  # prints, and shows no value
        ("for i in r:\n    i", "for i in r:\n    i"),  # a loop shows nothing
        ("x = 1", "x = 1"),
    ],
)
def test_a_cell_shows_no_value_the_page_does_not(code, cell):
    assert value_not_shown(code) == cell
