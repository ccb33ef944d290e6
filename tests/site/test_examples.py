"""Every executed block of the handbook as its own test item, through the build's own runner and recordings.

`pytest -k autograd` runs one chapter; a page executes once (and is reused from the
execution cache when nothing changed), however many of its blocks are selected.
"""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path

import pytest

from handbook.execution.blocks import scan_docs
from handbook.execution.failures import failure_message
from handbook.execution.labs import lab_pages
from handbook.execution.pipeline import execute, page_environment
from handbook.execution.recordings import Recordings
from handbook.execution.results import SiteRun

REPO = Path(__file__).resolve().parents[2]
PAGES = scan_docs(REPO) + lab_pages(REPO)  # the chapters' blocks and the labs' cells
BLOCKS = [block for page in PAGES for block in page.blocks]


@cache
def page_run(page: str) -> SiteRun:
    return execute(REPO, only={page})


@pytest.mark.parametrize("block", BLOCKS, ids=[f"{b.page.removesuffix('.md')}::{b.id}" for b in BLOCKS])
def test_block(block):
    result = page_run(block.page).results[block.page][block.index - 1]
    assert result.block == block
    if not result.passed:
        pytest.fail(failure_message(result), pytrace=False)
    if result.status.gpu_only:
        # Nothing ran: a GPU-only block on a machine without CUDA is not a pass.
        pytest.skip(f"GPU-only block and no CUDA device here; {result.status.meaning}")


def test_no_recording_without_a_block():
    env = page_environment(REPO)
    recordings = Recordings(REPO, env.release, python=env.python)
    assert [recordings.relative(p) for p in recordings.stale(PAGES)] == []


# An executed block's opening fence, as a page writes it (markdown-exec's true values of `exec`).
EXECUTED_FENCE = re.compile(r'^\s*(?:`{3,}|~{3,})\s*\w+.*\bexec="(?:on|yes|true|1)"', re.MULTILINE)


def test_every_executed_fence_of_every_page_is_a_block():
    """Counted again without the scan, page by page: a block the scan missed would run nowhere."""
    written = {
        path.relative_to(REPO / "docs").as_posix(): len(EXECUTED_FENCE.findall(path.read_text(encoding="utf-8")))
        for path in sorted((REPO / "docs").rglob("*.md"))
    }
    chapters = [page for page in PAGES if page.path.endswith(".md")]  # a lab's cells are counted by its own parser
    assert {page.path: len(page.blocks) for page in chapters} == written
    assert sum(len(page.blocks) for page in chapters) == sum(written.values()) > 0
