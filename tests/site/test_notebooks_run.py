"""In a kernel on the pinned torch: the chapters' notebooks' own cells, one chapter's notebook top to
bottom printing what the recordings say (every chapter's with --all-notebooks, `make notebooks`),
and each lab's notebook; each edition's built notebooks are clean."""

from __future__ import annotations

import re
from pathlib import Path

import nbformat
import pytest
import torch
from chapter_notebooks import PAGES, cell_output, notebook_for, own_and_block_cells
from markdown_it import MarkdownIt
from nbclient import NotebookClient
from site_browser import EDITION_SITES, stale

from handbook import labs
from handbook.environment import installed_torch
from handbook.execution.figures import build_font_cache
from handbook.execution.labs import lab_files
from handbook.execution.measurements import broken_claims, masked
from handbook.execution.normalise import normalise
from handbook.mkdocs_config import load_site_config
from handbook.notebooks import (
    INSTALL_TAG,
    link_base,
)

REPO = Path(__file__).resolve().parents[2]
LABS = lab_files(REPO)


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


# The notebooks known to run long on two loaded cores, and their own timeout (the default is pyproject's):
# compile-debugging's took 637 s in a full `make test`.
LONG_NOTEBOOKS = {"compile-debugging.md": 2400}
# The chapter `make test` runs top to bottom, the canary of a kernel running a page's blocks as its page
# process does (its stdout and stderr, its warnings, one namespace): the cheapest chapter (6 s). Every
# other chapter's cells are checked against the blocks the strict build ran (tests/unit/test_notebooks.py);
# `make notebooks` (--all-notebooks) runs them all.
CANARY = "tensors.md"


def pytest_generate_tests(metafunc):
    if metafunc.definition.name == "test_notebook_runs_top_to_bottom_and_prints_the_recordings":
        pages = PAGES if metafunc.config.getoption("all_notebooks") else [p for p in PAGES if p.path == CANARY]
        metafunc.parametrize(
            "page",
            [
                pytest.param(page, id=page.path, marks=[pytest.mark.timeout(LONG_NOTEBOOKS[page.path])])
                if page.path in LONG_NOTEBOOKS
                else pytest.param(page, id=page.path)
                for page in pages
            ],
        )


def run_in_a_kernel(notebook, tmp_path, monkeypatch, extensions_dir) -> list:
    """`notebook` run top to bottom, its install cell left out, in a kernel on this torch: its code
    cells as run, after none raised and none showed a value."""
    notebook.cells = [cell for cell in notebook.cells if INSTALL_TAG not in cell.metadata.get("tags", [])]
    # A page process captures stdout and stderr in one file, in order; so does this kernel now.
    notebook.cells.insert(0, nbformat.v4.new_code_cell("import sys\nsys.stderr = sys.stdout"))
    monkeypatch.setenv("TORCHINDUCTOR_CACHE_DIR", str(REPO / ".cache/handbook/inductor/native"))
    monkeypatch.setenv("TORCH_EXTENSIONS_DIR", str(extensions_dir))
    # matplotlib's font cache built before the kernel starts: building it in a cell prints a line.
    monkeypatch.setenv("MPLCONFIGDIR", str(REPO / ".cache/handbook/matplotlib"))
    build_font_cache(REPO / ".cache/handbook/matplotlib")
    client = NotebookClient(
        notebook, timeout=900, kernel_name="python3", resources={"metadata": {"path": str(tmp_path)}}
    )
    client.execute()
    code = [cell for cell in notebook.cells if cell.cell_type == "code"]
    assert not [o for cell in code for o in cell.outputs if o.output_type == "error"]
    # A value Jupyter shows (an `execute_result`) is one the page, which shows what a block printed, does not.
    shown = [
        cell.source.splitlines()[-1] for cell in code if any(o.output_type == "execute_result" for o in cell.outputs)
    ]
    assert not shown, f"cells that show a value the page does not: {shown}"
    return code


def test_the_notebooks_own_cells_run_in_a_kernel_and_pass_the_torch_guard(tmp_path, monkeypatch, extensions_dir):
    """The code a notebook has and its page has not: the torch guard and PAGE_STATE (the pinned install
    aside), run as a reader's kernel runs them. They depend on the torch alone, so every chapter has
    the same: one kernel runs each different set of them (one today)."""
    own_cells = {}
    for page in PAGES:
        cells = own_and_block_cells(notebook_for(page))[0]
        own_cells[tuple(cell.source for cell in cells)] = cells
    for cells in own_cells.values():
        notebook = nbformat.v4.new_notebook(cells=cells)
        printed = [cell_output(cell) for cell in run_in_a_kernel(notebook, tmp_path, monkeypatch, extensions_dir)]
        # The stderr cell and PAGE_STATE print nothing; the guard, the torch running and the one recorded.
        assert printed == ["", f"torch {torch.__version__} (recorded with {installed_torch().version})\n", ""]


def test_notebook_runs_top_to_bottom_and_prints_the_recordings(page, tmp_path, monkeypatch, extensions_dir):
    if any(block.device == "cuda" for block in page.blocks):
        # GPU-only cells cannot run here; the rest of the chapter must.
        page = type(page)(page.path, tuple(b for b in page.blocks if b.device != "cuda"))
    notebook = notebook_for(page)
    expected = {cell.source: cell_output(cell) for cell in notebook.cells if cell.cell_type == "code" and cell.outputs}
    code = run_in_a_kernel(notebook, tmp_path, monkeypatch, extensions_dir)
    differing = [
        f"{cell.source.splitlines()[0]}\n  recorded: {comparable(expected[cell.source])!r}\n  notebook: "
        f"{comparable(cell_output(cell))!r}"
        for cell in code
        if cell.source in expected and comparable(cell_output(cell)) != comparable(expected[cell.source])
    ]
    assert not differing, "\n".join(differing)
    capability = torch.backends.cpu.get_cpu_capability()
    broken = [problem for cell in code for problem in broken_claims(cell_output(cell), capability)]
    assert not broken, "\n".join(broken)


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
