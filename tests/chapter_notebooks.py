"""The chapters' notebooks as the build makes them, from this tree's pages and recordings: shared by
the unit tests of the notebook's cells and the site tests that run them in a kernel."""

from __future__ import annotations

from pathlib import Path

from handbook.environment import installed_torch
from handbook.execution.blocks import scan_docs
from handbook.execution.recordings import Recordings
from handbook.notebooks import chapter_notebook
from handbook.versioned_prose import render_keeping_lines

REPO = Path(__file__).resolve().parent.parent
PAGES = [page for page in scan_docs(REPO) if page.blocks and page.path != "index.md"]


def notebook_for(page):
    identity = installed_torch()
    recordings = Recordings(REPO, identity.release)
    outputs = {block.id: recordings.read(block) or "" for block in page.blocks if block.device != "cuda"}
    markdown = render_keeping_lines((REPO / "docs" / page.path).read_text(), identity.release)
    return chapter_notebook(markdown, page, outputs, identity.version, lambda text: text)


# A notebook's own code, before its page's blocks: the pinned install, the torch guard, PAGE_STATE.
OWN_CELLS = 3


def own_and_block_cells(notebook) -> tuple[list, list]:
    """The notebook's code cells: its own, then one per block of its page (tests/unit/test_notebooks.py
    holds every chapter's to that)."""
    code = [cell for cell in notebook.cells if cell.cell_type == "code"]
    return code[:OWN_CELLS], code[OWN_CELLS:]


def cell_output(cell) -> str:
    return "".join(output.get("text", "") for output in cell.outputs if output.output_type == "stream")
