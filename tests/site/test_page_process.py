"""Inside a page process: what a block leaves behind (threads that print late, no free file descriptors),
and what its code is compiled under."""

from __future__ import annotations

from pathlib import Path

import pytest

from handbook.execution.runner import BlockJob, PageJob, run_pages

REPO = Path(__file__).resolve().parents[2]


def run(*codes: str) -> list:
    return run_pages([PageJob("p", [BlockJob(code, "docs/p.md", 1, 60) for code in codes])], REPO)["p"]


def test_what_a_thread_prints_after_its_block_ended_is_not_the_next_blocks_output():
    # The thread prints once the next block has started, and that block ends once it has printed:
    # told by an event and a join, not by sleeps a loaded machine could outlast.
    later = (
        "import threading\nnext_started = threading.Event()\n"
        "def later():\n    next_started.wait()\n    print('printed late')\n"
        "thread = threading.Thread(target=later)\nthread.start()\nprint('one')"
    )
    first, second = run(later, "next_started.set()\nthread.join()\nprint('two')")
    assert second.status == "ok" and second.output == "two\n"
    assert first.status == "late-output" and first.output == "one\n"
    assert "13 character(s) that threads it started printed after it ended were not recorded" in first.error


def test_a_thread_joined_before_its_block_ends_is_recorded_with_it():
    joined = (
        "import threading\nthread = threading.Thread(target=print, args=('from a thread',))\n"
        "thread.start()\nthread.join()"
    )
    (run_,) = run(joined)
    assert run_.status == "ok" and run_.output == "from a thread\n"


@pytest.mark.parametrize(
    "code",
    [
        "keep = []\nwhile True:\n    keep.append(open('/dev/null'))",
        "import resource\nsoft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)\n"
        "resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))\nkeep = []\ntry:\n    while len(keep) < 100_000:\n"
        "        keep.append(open('/dev/null'))\nexcept OSError:\n    pass",
    ],
    ids=["until EMFILE", "100k"],
)
def test_a_block_that_uses_up_the_file_descriptors_fails_and_is_named(code):
    first, after = run(code, "print('never')")
    assert first.status == "raised"
    assert "the block left the page process no free file descriptor (Too many open files)" in first.error
    assert after.status == "not-run"


def test_a_block_is_compiled_under_its_own_future_imports_not_the_page_processes():
    # page_process.py has `from __future__ import annotations`; a block must not inherit it: a reader's
    # `python file.py` or notebook evaluates annotations, so an annotation naming nothing fails there.
    (evaluated,) = run("def f(x: int) -> str: ...\nprint(f.__annotations__)")
    (broken,) = run("def g(x: NotDefinedAnywhere): ...")
    (postponed,) = run(
        "from __future__ import annotations\ndef h(x: NotDefinedAnywhere): ...\nprint(h.__annotations__)"
    )
    assert evaluated.status == "ok" and evaluated.output == "{'x': <class 'int'>, 'return': <class 'str'>}\n"
    assert broken.status == "raised" and "NameError: name 'NotDefinedAnywhere' is not defined" in broken.error
    assert postponed.status == "ok" and postponed.output == "{'x': 'NotDefinedAnywhere'}\n"
