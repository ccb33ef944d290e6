"""`handbook.execution.failures`: what the build says about a failing block, and where, on
results made here (no page runs)."""

from __future__ import annotations

import pytest

from handbook.environment import RECORDED_PLATFORM, RECORDED_PYTHON, Environment
from handbook.execution.blocks import Block, Page
from handbook.execution.failures import failure_message, failure_report, killed_processes, place, platform_note
from handbook.execution.results import BlockResult, SiteRun
from handbook.execution.status import Status

# Synthetic data: a made-up Environment, and the messages that name it

ENV = Environment("2.15.0+cpu", "d0f2af8b66b20da4baa50644c0cd3f887a2eae2e", "3.12.4", "cpu")


def block(page: str = "demo.md", index: int = 1, id: str = "") -> Block:
    stem = page.removesuffix(".md")
    return Block(page, index, id or f"block-{index}", "print(1)", f"snippets/{stem}/code.py", 10 * index, 5 * index)


def result(status: Status, page: str = "demo.md", index: int = 1, **fields) -> BlockResult:
    return BlockResult(status, block=block(page, index), **fields)


def site(*results: BlockResult, pages: tuple[str, ...] = (), **fields) -> SiteRun:
    """A run of `results`, on `pages` in that order (by default in the order of their first result)."""
    order = list(pages) or list(dict.fromkeys(r.block.page for r in results))
    by_page = {path: [r for r in results if r.block.page == path] for path in order}
    made = [Page(path, tuple(r.block for r in page_results)) for path, page_results in by_page.items()]
    return SiteRun(ENV, made, results=by_page, **fields)


# --- one block ---------------------------------------------------------------------------------


def test_the_place_names_the_page_the_block_and_the_snippet_line():
    assert place(result(Status.RAISED, index=2)) == "docs/demo.md, block 2 (block-2), snippets/demo/code.py:20"


def test_in_a_translations_build_the_place_names_the_translated_page_and_the_codes_own_origin():
    """A translation runs its original's blocks, shown as its own pages' (`Page.shown_in`)."""
    (translated,) = Page("demo.md", (block(index=2),)).shown_in("docs-zh").blocks
    shown = BlockResult(Status.RAISED, block=translated)
    assert place(shown) == "docs-zh/demo.md, block 2 (block-2), snippets/demo/code.py:20"


def test_a_failure_says_what_happened_where_then_its_error_indented():
    message = failure_message(result(Status.RAISED, error="Traceback (most recent call last):\nValueError: boom"))
    assert message.splitlines() == [
        "docs/demo.md, block 1 (block-1), snippets/demo/code.py:10: the block raised an exception",
        "    Traceback (most recent call last):",
        "    ValueError: boom",
    ]


def test_a_failure_without_an_error_or_output_is_one_line():
    assert failure_message(result(Status.TIMEOUT)) == (
        "docs/demo.md, block 1 (block-1), snippets/demo/code.py:10: the block ran past its timeout"
    )


@pytest.mark.parametrize("status", [Status.RAISED, Status.EXIT, Status.CRASHED, Status.TIMEOUT, Status.MEMORY])
def test_what_a_stopped_block_printed_is_shown_its_last_2000_characters(status):
    printed = "early line\n" + "x" * 3000 + "\nlast line before it stopped"
    lines = failure_message(result(status, output=printed, error="stopped")).splitlines()
    assert lines[1:3] == ["    stopped", "    output before the failure:"]
    shown = "\n".join(line.removeprefix("    | ") for line in lines[3:])
    assert shown == printed[-2000:] and "early line" not in shown
    assert all(line.startswith("    | ") for line in lines[3:])


@pytest.mark.parametrize("status", [Status.DRIFT, Status.CLAIM, Status.UNRECORDED, Status.MISPREDICTED])
def test_a_block_that_ran_to_its_end_shows_its_error_not_its_output_again(status):
    """Its error holds the diff, the broken claim or the missing recording: the output is in it, or beside it."""
    message = failure_message(result(status, output="the whole output\n", error="-old\n+new"))
    assert "output before the failure" not in message and "the whole output" not in message
    assert message.endswith("    -old\n    +new")


@pytest.mark.parametrize(
    "status, ran_again, told",
    [
        (Status.DRIFT, True, True),
        (Status.CLAIM, True, True),
        (Status.DRIFT, False, False),
        (Status.RAISED, True, False),  # a page run again for another block's drift: nothing to rule out
    ],
)
def test_a_failure_repeated_by_a_fresh_run_says_so(status, ran_again, told):
    message = failure_message(result(status, error="e", ran_again=ran_again))
    assert ("its page ran a second time in this build, fresh" in message) is told


# --- the whole run -----------------------------------------------------------------------------


def test_the_report_lists_failures_in_page_order_counts_blocks_that_did_not_run_and_names_stale_recordings():
    run = site(
        result(Status.OK, "b.md", 1),
        result(Status.RAISED, "b.md", 2, error="ValueError: b"),
        result(Status.NOT_RUN, "b.md", 3),
        result(Status.NOT_RUN, "b.md", 4),
        result(Status.DRIFT, "a.md", 1, error="-1\n+2"),
        result(Status.CACHED, "a.md", 2),
        pages=("a.md", "b.md"),
        stale=["recordings/torch-2.15.0/a/gone.txt"],
    )
    report = failure_report(run)
    header, *parts = report.split("\n\n")
    assert header == "3 example problem(s):"  # two blocks and one stale recording
    assert parts[0].startswith("docs/a.md, block 1 (block-1), snippets/a/code.py:10: the output differs")
    assert parts[1].startswith("docs/b.md, block 2 (block-2), snippets/b/code.py:20: the block raised an exception")
    assert parts[2] == "(2 later block(s) of the failing pages did not run)"
    assert parts[3] == (
        "recordings/torch-2.15.0/a/gone.txt: a recording whose block is gone; run `make goldens` to remove it, "
        "or restore the block"
    )
    assert len(parts) == 4 and "block 3" not in report and "(block-2), snippets/a/" not in report


def test_a_release_checked_against_its_nearest_says_which_and_how_to_record_it():
    run = site(result(Status.DRIFT, index=1, error="-a\n+b"), result(Status.OK, index=2), compared_with="2.14.1")
    header = failure_report(run).split("\n\n")[0]
    assert header == (
        "torch 2.15.0 has no recordings yet; its outputs were compared with the nearest recorded release, "
        "torch 2.14.1: 1 of 2 blocks differ. Review the differences below, then record them with "
        "`make goldens TORCH=2.15.0`."
    )


def test_a_drift_on_a_python_without_recordings_says_whose_outputs_it_was_checked_against():
    header = failure_report(site(result(Status.DRIFT, error="-a\n+b"), python_recorded=False)).split("\n\n")[0]
    assert header == (
        "1 example problem(s):\n(torch 2.15.0 has no outputs recorded for Python 3.12; they were compared with "
        f"Python {RECORDED_PYTHON}'s. Where this Python prints differently, review and record it with "
        "`make goldens TORCH=2.15.0 PY=3.12`.)"
    )


def test_a_drift_on_a_platform_without_recordings_says_so_in_the_report():
    run = site(result(Status.DRIFT, error="-a\n+b"), platform="macos-arm64", platform_recorded=False)
    assert platform_note(run) == (
        f"platform macos-arm64 has no outputs recorded for torch 2.15.0: they are checked against "
        f"{RECORDED_PLATFORM}'s, and a block that prints differently here is drift; where it genuinely does, "
        "`make goldens` on this platform records it in recordings/torch-2.15.0/platform-macos-arm64/"
    )
    assert failure_report(run).split("\n\n")[0] == f"1 example problem(s):\n({platform_note(run)})"


@pytest.mark.parametrize(
    "missing", [{"python_recorded": False}, {"platform": "macos-arm64", "platform_recorded": False}]
)
def test_a_failure_that_is_no_drift_says_nothing_of_missing_recordings(missing):
    """A block that raised raises on every Python and platform: their recordings are not the question."""
    assert failure_report(site(result(Status.RAISED, error="boom"), **missing)).split("\n\n")[0] == (
        "1 example problem(s):"
    )


def test_each_process_a_block_left_running_is_named_with_the_block():
    run = site(
        result(Status.OK, "a.md", 1, leftovers=["sleep 100", "sleep 200"]),
        result(Status.OK, "a.md", 2),
        result(Status.RAISED, "b.md", 1, leftovers=["sleep 7"]),
    )
    assert killed_processes(run) == [
        "docs/a.md, block 1 (block-1), snippets/a/code.py:10: killed a process it left running: sleep 100",
        "docs/a.md, block 1 (block-1), snippets/a/code.py:10: killed a process it left running: sleep 200",
        "docs/b.md, block 1 (block-1), snippets/b/code.py:10: killed a process it left running: sleep 7",
    ]
    assert killed_processes(site(result(Status.OK))) == []


def test_a_failure_and_a_killed_process_say_nothing_as_the_build():
    """A block's error, its output and the command line of a process it left running reach the build's
    log: a line of theirs that a CI runner would run (`::error`), or a terminal escape, is escaped."""
    failed = result(Status.RAISED, error="Traceback\n::add-mask::token", output="\x1b]0;title\x07out\n::error::x")
    message = failure_message(failed)
    assert "\n::" not in message and "\n    ::" not in message and "\x1b" not in message
    assert "\\    ::add-mask::token" in message
    left = result(Status.OK, leftovers=["sleep 100\n::error title=pwned::the build passed"])
    (line,) = killed_processes(site(left))
    assert "\n::error" not in line and "\n\\::error title=pwned" in line
