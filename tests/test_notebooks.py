"""Each chapter's notebook: right for its edition, and it runs top to bottom on the pinned torch,
printing what the recordings say."""

from __future__ import annotations

import re
import threading
from collections import Counter
from pathlib import Path

import nbformat
import pytest
import tinycss2
import torch
from nbclient import NotebookClient
from site_browser import stale

from handbook import notebooks
from handbook.environment import installed_torch
from handbook.execution.blocks import scan_docs
from handbook.execution.measurements import broken_claims, masked
from handbook.execution.normalise import normalise
from handbook.execution.recordings import Recordings
from handbook.notebooks import INSTALL_TAG, chapter_notebook, install_command, with_notebook_links, write
from handbook.releases import recorded_releases
from handbook.versioned_prose import render_keeping_lines

REPO = Path(__file__).resolve().parent.parent
PAGES = [page for page in scan_docs(REPO) if page.blocks and page.path != "index.md"]


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


BUILT_SITES = {
    release: REPO / ("site" if release == installed_torch().release else f".cache/site-{release}")
    for release in recorded_releases(REPO)
}


@pytest.mark.full
@pytest.mark.parametrize("release", sorted(BUILT_SITES))
def test_each_edition_notebooks_are_clean(release):
    """The notebooks the strict build of each edition wrote (`make test` builds every edition first)."""
    site = BUILT_SITES[release]
    problem = stale(site)
    assert problem is None, problem
    built = sorted(site.glob("notebooks/*/*.ipynb"))
    assert built, f"no notebooks in {site.relative_to(REPO)}: build this edition first (`make test` does)"
    assert {path.stem for path in built} == {page.path.removesuffix(".md") for page in PAGES}
    for path in built:
        notebook = nbformat.read(path, as_version=4)
        assert notebook.metadata["handbook"]["torch"].startswith(release)
        assert f"torch=={release}" in notebook.cells[0].source
        prose = "\n".join(cell.source for cell in notebook.cells if cell.cell_type == "markdown")
        assert re.findall(r"<!--.*?-->|\]\(pytorch:|--8<--", prose) == [], path.name
        tags = set(re.findall(r"github\.com/pytorch/pytorch/blob/([^/]+)/", prose))
        assert tags <= {f"v{release}"}, (path.name, tags)


def cell_output(cell) -> str:
    return "".join(output.get("text", "") for output in cell.outputs if output.output_type == "stream")


# A warning names the file and line of the code that triggered it: a snippet file on the page,
# a cell (`/tmp/ipykernel_<pid>/<hash>.py:1`) in the notebook. Everything else must be equal.
CODE_LOCATION = re.compile(
    r"^(?:snippets/\S+?|docs/\S+?|<tmp>/\d+\.py|/tmp/ipykernel_\d+/\d+\.py):\d+: (?=\w*Warning)", re.MULTILINE
)


def comparable(output: str) -> str:
    """Measured values are masked: a notebook checks them by their claims, as the build does."""
    return CODE_LOCATION.sub("<code>: ", masked(normalise(output, REPO)))


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
    client = NotebookClient(
        notebook, timeout=900, kernel_name="python3", resources={"metadata": {"path": str(tmp_path)}}
    )
    client.execute()
    errors = [
        o for cell in notebook.cells if cell.cell_type == "code" for o in cell.outputs if o.output_type == "error"
    ]
    assert not errors
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


def test_notebook_stylesheet_keeps_only_what_the_page_uses():
    page = (
        "<style>.w{--used: red; --unused: url(data:big); --chained: var(--used)}"
        ".w .a{color: var(--chained)} .w :is(.a, .b):hover{display:flex} .w .gone{color: blue}"
        ".w .highlight-ipynb .c1{color: #408080}</style>"
        '<div class="w"><p class="a">x</p><div class="highlight-ipynb"><span class="c1">#</span></div></div>'
    )
    kept = notebooks.notebook_page_html(page)
    assert "--used: red" in kept and "--chained" in kept and "--unused" not in kept
    assert ".w :is(.a, .b):hover" in kept and ".gone" not in kept and "#408080" not in kept


# A notebook page as mkdocs-jupyter hands it over, in small: two stylesheets (the inlined
# JupyterLab one and another), a CDN loader, a grouping rule, custom properties in a chain.
TWO_STYLES_PAGE = (
    '<script src="https://cdn.example/mathjax/tex-chtml.js"></script>'
    "<style>:root{--accent: #c00; --icon: url(data:image/svg+xml;base64,AAAA); --edge: var(--accent)}"
    ".jp-Cell:not(.jp-mod-hidden) {border-color: var(--edge)} .jp-Unused, .jp-Cell > p {margin: 0 !important}"
    ".highlight-ipynb .k{color: #008000}"
    "@media print{.jp-Cell{color: black; --print: 1} .jp-Gone{color: red}}"
    "@font-face{font-family: x; src: url(fonts/x.woff)}</style>"
    "<style>.jp-OutputArea pre{background: var(--shade, white)} .jp-Other{color: var(--accent)}</style>"
    '<div class="jp-Cell"><p>a &amp; b</p><div class="jp-OutputArea" style="color: var(--accent)">'
    "<pre>x<br>y</pre></div></div>"
)
# What the page became before the stylesheets were read once per process (byte for byte).
TWO_STYLES_DERIVED = (
    "<style>:root {--accent: #c00; --edge: var(--accent)}\n"
    ".jp-Cell:not(.jp-mod-hidden) {border-color: var(--edge)}\n"
    ".jp-Cell > p {margin: 0 !important}\n"
    "@media print{.jp-Cell {color: black}}\n"
    "@font-face{font-family: x; src: url(fonts/x.woff)}</style>"
    "<style>.jp-OutputArea pre {background: var(--shade, white)}</style>"
    '<div class="jp-Cell"><p>a &amp; b</p><div class="jp-OutputArea" style="color: var(--accent)">'
    "<pre>x<br/>y</pre></div></div>"
)


def forget_derived():
    """What a fresh process knows: no page derived, no stylesheet read."""
    for memo in (notebooks.notebook_page, notebooks._entries):
        memo.cache_clear()


@pytest.fixture
def parsed(monkeypatch):
    """Each text tinycss2 parses as a stylesheet, counted; and each page BeautifulSoup parses."""
    forget_derived()
    counts = {"sheets": Counter(), "pages": Counter()}
    parse, soup = tinycss2.parse_stylesheet, notebooks.BeautifulSoup

    def counting_parse(css, *args, **kwargs):
        counts["sheets"][css] += 1
        return parse(css, *args, **kwargs)

    def counting_soup(html, *args, **kwargs):
        counts["pages"][html] += 1
        return soup(html, *args, **kwargs)

    monkeypatch.setattr(tinycss2, "parse_stylesheet", counting_parse)
    monkeypatch.setattr(notebooks, "BeautifulSoup", counting_soup)
    yield counts
    forget_derived()


def test_a_notebook_page_is_derived_as_before_with_or_without_the_memo(parsed):
    assert notebooks.notebook_page(TWO_STYLES_PAGE).html == TWO_STYLES_DERIVED  # a fresh process
    assert notebooks.notebook_page(TWO_STYLES_PAGE).html == TWO_STYLES_DERIVED  # remembered
    assert notebooks.notebook_page_html(TWO_STYLES_PAGE) == TWO_STYLES_DERIVED  # stylesheets remembered
    forget_derived()
    assert notebooks.notebook_page_html(TWO_STYLES_PAGE) == TWO_STYLES_DERIVED


def test_a_page_seen_again_is_not_derived_again_and_a_changed_one_is(parsed):
    notebooks.notebook_page(TWO_STYLES_PAGE)
    sheets = sum(parsed["sheets"].values())
    assert parsed["pages"][TWO_STYLES_PAGE] == 1 and sheets
    notebooks.notebook_page(TWO_STYLES_PAGE)
    assert parsed["pages"][TWO_STYLES_PAGE] == 1 and sum(parsed["sheets"].values()) == sheets
    edited = TWO_STYLES_PAGE.replace("a &amp; b", "a &amp; c")  # a prose edit in the notebook
    assert notebooks.notebook_page(edited).html == TWO_STYLES_DERIVED.replace("a &amp; b", "a &amp; c")
    assert parsed["pages"][edited] == 1
    assert sum(parsed["sheets"].values()) == sheets  # the same classes: the same stylesheets, pruned alike


def test_a_stylesheet_shared_by_two_pages_is_parsed_once(parsed):
    jupyterlab = re.search(r"<style>(.*?)</style>", TWO_STYLES_PAGE)[1]
    other = TWO_STYLES_PAGE.replace('class="jp-OutputArea"', 'class="jp-Other"')  # another rule kept
    first, second = notebooks.notebook_page(TWO_STYLES_PAGE), notebooks.notebook_page(other)
    assert parsed["pages"][TWO_STYLES_PAGE] == parsed["pages"][other] == 1
    assert parsed["sheets"][jupyterlab] == 1
    assert ".jp-Other {color: var(--accent)}" in second.html and ".jp-Other" not in first.html
    forget_derived()
    assert notebooks.notebook_page(other) == second  # as a fresh process derives it


def test_a_notebook_page_names_what_its_kept_rules_would_load_from_outside(parsed):
    page = (
        '<style>.a{background: url("https://fonts.example/a.png")} .gone{background: url(https://b.example/b)}'
        '</style><p class="a">x</p><img src="https://img.example/i.png">'
    )
    derived = notebooks.notebook_page(page)
    assert derived.outside == ("https://fonts.example/a.png", "https://img.example/i.png")
    assert list(derived.outside) == notebooks.external_resources(derived.html)


def test_the_memo_keeps_only_the_last_texts_it_was_given():
    derived = []
    remembered = notebooks.digest_memo(size=2)(lambda text: derived.append(text) or text.upper())
    assert [remembered(text) for text in ("a", "b", "a", "c", "a", "b")] == ["A", "B", "A", "C", "A", "B"]
    assert derived == ["a", "b", "c", "b"]  # "b" was the oldest when "c" came; "a" was seen since


def test_a_quoted_value_is_text_in_the_notebook_too():
    from nbconvert.filters.markdown_mistune import markdown2html_mistune

    from handbook.execution.blocks import Block, Page
    from handbook.prose.quotes import resolve_quotes

    output = "value: [x](javascript:alert(1)) <img src=x onerror=alert(1)> *b*"
    markdown = 'It prints <!-- out b /value: (.*)/ -->.\n\n```python exec="on"\nprint(1)\n```\n'
    quoted = resolve_quotes(markdown, "demo.md", lambda page, block: output)
    block = Block("demo.md", 1, "b", "print(1)", "docs/demo.md", 4, 3)
    notebook = chapter_notebook(quoted.markdown, Page("demo.md", (block,)), {"b": output}, "2.13.0", lambda t: t)
    [prose] = [cell.source for cell in notebook.cells if cell.cell_type == "markdown"]
    html = markdown2html_mistune(prose)  # how mkdocs-jupyter (nbconvert) renders a Markdown cell
    assert "<img" not in html and "<a" not in html and "<em>" not in html
    assert "It prints [x](javascript:alert(1)) &lt;img src=x onerror=alert(1)&gt; *b*." in html


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
    shown = with_notebook_links(page, "../notebooks/ch/", None)
    lines = shown.splitlines()
    assert lines.index("#Title") < next(i for i, line in enumerate(lines) if "handbook-notebook-links" in line)
    assert "Open in Colab" not in shown
    assert with_notebook_links("No heading.\n", "n/", "https://colab").startswith('<p class="handbook-')
