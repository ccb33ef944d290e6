"""The chapters' notebooks as the build makes them, from this tree's pages and recordings: shared by
the unit tests of the notebook's cells and the site tests that run it in a kernel."""

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
