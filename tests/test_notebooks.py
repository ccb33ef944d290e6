"""Each chapter's notebook holds its code and recorded outputs, and runs top to bottom on the pinned torch."""

from __future__ import annotations

from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

from handbook.blocks import scan_docs
from handbook.environment import installed_torch
from handbook.notebooks import page_notebook
from handbook.recordings import Recordings

REPO = Path(__file__).resolve().parent.parent
PAGES = [page for page in scan_docs(REPO) if page.blocks]


def notebook_for(page):
    recordings = Recordings(REPO, installed_torch().release)
    outputs = {block.id: recordings.read(block) or "" for block in page.blocks if block.device != "cuda"}
    return page_notebook((REPO / "docs" / page.path).read_text(), page, outputs)


def test_notebook_holds_code_prose_and_recorded_outputs():
    page = next(p for p in PAGES if p.path == "tensors.md")
    notebook = notebook_for(page)
    code = [cell for cell in notebook.cells if cell.cell_type == "code"]
    assert len(code) == len(page.blocks) + 1  # the page-state cell first
    assert code[1].source == page.blocks[0].code
    assert code[1].outputs[0].text.strip() == Recordings(REPO, installed_torch().release).read(page.blocks[0])
    assert any(cell.cell_type == "markdown" and cell.source.startswith("# Tensors and storage") for cell in notebook.cells)
    nbformat.validate(notebook)


@pytest.mark.parametrize("page", PAGES, ids=[p.path for p in PAGES])
def test_notebook_runs_top_to_bottom(page, tmp_path, monkeypatch):
    if any(block.device == "cuda" for block in page.blocks):
        # GPU-only cells cannot run here; the rest of the chapter must.
        page = type(page)(page.path, tuple(b for b in page.blocks if b.device != "cuda"))
    notebook = notebook_for(page)
    monkeypatch.setenv("TORCHINDUCTOR_CACHE_DIR", str(REPO / ".cache/handbook/inductor"))
    monkeypatch.setenv("TORCH_EXTENSIONS_DIR", str(tmp_path / "torch_extensions"))  # never wait on the build's lock
    client = NotebookClient(notebook, timeout=900, kernel_name="python3", resources={"metadata": {"path": str(tmp_path)}})
    client.execute()
    errors = [o for cell in notebook.cells if cell.cell_type == "code" for o in cell.outputs if o.output_type == "error"]
    assert not errors
