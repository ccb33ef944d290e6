"""Every executed block of the handbook as its own test item, through the build's own runner and recordings.

`pytest -k autograd` runs one chapter; a page executes once (and is reused from the
execution cache when nothing changed), however many of its blocks are selected.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

import pytest

from handbook.blocks import scan_docs
from handbook.execution import SiteRun, execute
from handbook.report import describe

REPO = Path(__file__).resolve().parent.parent
PAGES = scan_docs(REPO)
BLOCKS = [block for page in PAGES for block in page.blocks]


@cache
def page_run(page: str) -> SiteRun:
    return execute(REPO, only={page})


@pytest.mark.parametrize("block", BLOCKS, ids=[f"{b.page.removesuffix('.md')}::{b.id}" for b in BLOCKS])
def test_block(block):
    result = page_run(block.page).results[block.page][block.index - 1]
    assert result.block == block
    if not result.passed:
        pytest.fail(describe(result), pytrace=False)


def test_no_recording_without_a_block():
    from handbook.execution import environment
    from handbook.environment import release_of
    from handbook.recordings import Recordings

    recordings = Recordings(REPO, release_of(environment(REPO)["torch"]))
    assert [recordings.relative(p) for p in recordings.stale(PAGES)] == []


def test_handbook_has_executed_blocks():
    assert len(BLOCKS) >= 12
