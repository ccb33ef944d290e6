"""Each chapter's notebook: right for its edition, and it runs top to bottom on the pinned torch,
printing what the recordings say."""

from __future__ import annotations

import re
import threading
from pathlib import Path

import nbformat
import pytest
import torch
from markdown_it import MarkdownIt
from nbclient import NotebookClient
from site_browser import EDITION_SITES, stale

from handbook import labs
from handbook.environment import installed_torch
from handbook.execution.blocks import Block, Page, scan_docs
from handbook.execution.figures import build_font_cache
from handbook.execution.labs import lab_files
from handbook.execution.measurements import broken_claims, masked
from handbook.execution.normalise import normalise
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
from handbook.versioned_prose import render_keeping_lines

# Synthetic data: the torch versions notebooks and their links are made for

REPO = Path(__file__).resolve().parents[2]
PAGES = [page for page in scan_docs(REPO) if page.blocks and page.path != "index.md"]
LABS = lab_files(REPO)


def notebook_for(page):
    identity = installed_torch()
    recordings = Recordings(REPO, identity.release)
    outputs = {block.id: recordings.read(block) or "" for block in page.blocks if block.device != "cuda"}
    markdown = render_keeping_lines((REPO / "docs" / page.path).read_text(), identity.release)
    return chapter_notebook(markdown, page, outputs, identity.version, lambda text: text)


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
    code = [cell for cell in notebook.cells if cell.cell_type == "code"]
    assert len(code) == len(page.blocks) + 3  # install, check, page state
    assert code[3].source == page.blocks[0].code
    assert code[3].outputs[0].text.strip() == Recordings(REPO, installed_torch().release).read(page.blocks[0])
    nbformat.validate(notebook)


def test_install_command_installs_the_recorded_build():
    assert install_command("2.13.0+cpu") == "pip install torch==2.13.0 --index-url https://download.pytorch.org/whl/cpu"
    assert install_command("2.15.0+cu132") == "pip install torch==2.15.0"


@pytest.mark.full
@pytest.mark.parametrize("release", sorted(EDITION_SITES))
def test_each_edition_notebooks_are_clean(release):
    """The notebooks the strict build of each edition wrote (`make test` builds every edition first)."""
    site = EDITION_SITES[release]
    site_url = load_site_config(REPO / "mkdocs.yml").site_url
    problem = stale(site)
    assert problem is None, problem
    built = sorted(path for path in site.glob("notebooks/*.ipynb") if not path.name.startswith("labs-"))
    assert built, f"no notebooks in {site.relative_to(REPO)}: build this edition first (`make test` does)"
    assert {path.stem for path in built} == {page.path.removesuffix(".md") for page in PAGES}
    lab_notebooks = sorted(site.glob("notebooks/labs-*.ipynb"))
    assert [path.relative_to(site).as_posix() for path in lab_notebooks] == [labs.notebook_path(lab) for lab in LABS]
    built += lab_notebooks  # held to the same rules: pinned install, links at this tag and to this edition
    for path in built:
        notebook = nbformat.read(path, as_version=4)
        assert notebook.metadata["handbook"]["torch"].startswith(release)
        assert f"torch=={release}" in notebook.cells[0].source
        prose = "\n".join(cell.source for cell in notebook.cells if cell.cell_type == "markdown")
        assert re.findall(r"<!--.*?-->|\]\(pytorch:|--8<--", prose) == [], path.name
        tags = set(re.findall(r"github\.com/pytorch/pytorch/blob/([^/]+)/", prose))
        assert tags <= {f"v{release}"}, (path.name, tags)
        # Links to the handbook's pages lead to this edition's published chapter pages.
        targets = re.findall(r'(?:href|src)="([^"]*)"', MarkdownIt("commonmark").render(prose))
        assert [t for t in targets if not t.startswith(("https://", "http://", "mailto:"))] == [], path.name
        assert link_base(site_url, release) in prose, path.name
    chapters = {path.stem for path in built} - {path.stem for path in lab_notebooks}
    for lab in LABS:  # offered at the top of the lab's page
        html = (site / labs.page_url(lab) / "index.html").read_text()
        assert f'download="" href="../../{labs.notebook_path(lab)}">' in html
        assert html.index("handbook-notebook-links") < html.index("<h2")
    for chapter in chapters:  # offered at the top of its chapter page, where the site has it
        html = (site / chapter / "index.html").read_text()
        assert f'href="../notebooks/{chapter}.ipynb" download>Download notebook</a>' in html
        assert html.index("handbook-notebook-links") < html.index("<h2")


def cell_output(cell) -> str:
    return "".join(output.get("text", "") for output in cell.outputs if output.output_type == "stream")


# A warning names the file and line of the code that triggered it: a snippet file on the page,
# a cell (`/tmp/ipykernel_<pid>/<hash>.py:1`) in the notebook. Everything else must be equal.
CODE_LOCATION = re.compile(
    r"^(?:snippets/\S+?|docs/\S+?|<tmp>/\d+\.py|/tmp/ipykernel_\d+/\d+\.py):\d+: (?=\w*Warning)", re.MULTILINE
)
# So do Dynamo's logs, as `File "<file>", line <n>` or `(<file>:<n>)`.
CODE_FRAME = re.compile(r'(?:snippets/[\w/.-]+?\.py|<tmp>/\d+\.py|/tmp/ipykernel_\d+/\d+\.py)(?:", line |:)\d+')
# A warning echoes its source line, and a notebook cell's last line may end with the `;` that keeps
# Jupyter from showing its value (notebooks.value_not_shown), which the page's block does not have.
ECHOED_SEMICOLON = re.compile(r"^(  \S.*?);(\s*(?:#.*)?)$", re.MULTILINE)


def comparable(output: str) -> str:
    """Measured values are masked: a notebook checks them by their claims, as the build does."""
    located = CODE_FRAME.sub("<code>:<n>", CODE_LOCATION.sub("<code>: ", masked(normalise(output, REPO))))
    return ECHOED_SEMICOLON.sub(r"\1\2", located)


@pytest.mark.full
@pytest.mark.parametrize("page", PAGES, ids=[p.path for p in PAGES])
def test_notebook_runs_top_to_bottom_and_prints_the_recordings(page, tmp_path, monkeypatch):
    if any(block.device == "cuda" for block in page.blocks):
        # GPU-only cells cannot run here; the rest of the chapter must.
        page = type(page)(page.path, tuple(b for b in page.blocks if b.device != "cuda"))
    notebook = notebook_for(page)
    notebook.cells = [cell for cell in notebook.cells if INSTALL_TAG not in cell.metadata.get("tags", [])]
    # A page process captures stdout and stderr in one file, in order; so does this kernel now.
    notebook.cells.insert(0, nbformat.v4.new_code_cell("import sys\nsys.stderr = sys.stdout"))
    expected = {cell.source: cell_output(cell) for cell in notebook.cells if cell.cell_type == "code" and cell.outputs}
    monkeypatch.setenv("TORCHINDUCTOR_CACHE_DIR", str(REPO / ".cache/handbook/inductor/native"))
    monkeypatch.setenv("TORCH_EXTENSIONS_DIR", str(tmp_path / "torch_extensions"))  # never wait on the build's lock
    # matplotlib's font cache built before the kernel starts: building it in a cell prints a line.
    monkeypatch.setenv("MPLCONFIGDIR", str(REPO / ".cache/handbook/matplotlib"))
    build_font_cache(REPO / ".cache/handbook/matplotlib")
    client = NotebookClient(
        notebook, timeout=900, kernel_name="python3", resources={"metadata": {"path": str(tmp_path)}}
    )
    client.execute()
    errors = [
        o for cell in notebook.cells if cell.cell_type == "code" for o in cell.outputs if o.output_type == "error"
    ]
    assert not errors
    # A value Jupyter shows (an `execute_result`) is one the page, which shows what a block printed, does not.
    shown = [
        cell.source.splitlines()[-1]
        for cell in notebook.cells
        if cell.cell_type == "code" and any(o.output_type == "execute_result" for o in cell.outputs)
    ]
    assert not shown, f"cells that show a value the page does not: {shown}"
    differing = [
        f"{cell.source.splitlines()[0]}\n  recorded: {comparable(expected[cell.source])!r}\n  notebook: "
        f"{comparable(cell_output(cell))!r}"
        for cell in notebook.cells
        if cell.source in expected and comparable(cell_output(cell)) != comparable(expected[cell.source])
    ]
    assert not differing, "\n".join(differing)
    capability = torch.backends.cpu.get_cpu_capability()
    broken = [
        problem
        for cell in notebook.cells
        if cell.cell_type == "code"
        for problem in broken_claims(cell_output(cell), capability)
    ]
    assert not broken, "\n".join(broken)


@pytest.mark.full
@pytest.mark.parametrize("lab", LABS)
def test_a_lab_notebook_from_the_site_runs_top_to_bottom_and_its_checks_say_correct(lab, tmp_path, monkeypatch):
    """The reader's notebook, as this torch's edition publishes it, in a kernel on this torch: every
    cell runs (the starters too: `...` is a value), and every check prints `correct` for its solution."""
    site = EDITION_SITES[installed_torch().release]
    problem = stale(site)
    assert problem is None, problem
    notebook = nbformat.read(site / labs.notebook_path(lab), as_version=4)
    notebook.cells = [cell for cell in notebook.cells if INSTALL_TAG not in cell.metadata.get("tags", [])]
    # The outputs the build recorded (the version check's line is the kernel's own, and not recorded).
    recorded = {cell.source: cell_output(cell) for cell in notebook.cells if cell.cell_type == "code" and cell.outputs}
    client = NotebookClient(
        notebook, timeout=600, kernel_name="python3", resources={"metadata": {"path": str(tmp_path)}}
    )
    client.execute()
    code = [cell for cell in notebook.cells if cell.cell_type == "code"]
    assert not [o for cell in code for o in cell.outputs if o.output_type == "error"]
    checks = [cell for cell in code if cell.metadata.get("tags") == ["check"]]
    assert len(checks) >= 4 and all(cell_output(cell).strip() == "correct" for cell in checks)
    differing = [
        c.source.splitlines()[0]
        for c in code
        if c.source in recorded and comparable(cell_output(c)) != comparable(recorded[c.source])
    ]
    assert differing == [], differing


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
