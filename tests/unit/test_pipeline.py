"""The pipeline's checks, on runs made here: a run against its recording, predictions, given runs.

The pipeline end to end (pages run in processes of their own) is `tests/site/test_plugin.py` and
`tests/site/test_examples.py`; these check its decisions on constructed runs, with no page run.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from handbook.execution.blocks import Block, Page
from handbook.execution.cache import ExecutionCache
from handbook.execution.pipeline import _cached_runs, check, check_predictions, stored_runs
from handbook.execution.recordings import Recordings
from handbook.execution.results import BlockRun, run_as_json
from handbook.execution.status import Status

# Synthetic data: recordings in a temporary tree, under a release the test names

BLOCK = Block("ch.md", 1, "shapes", "print(1)", "docs/ch.md", 3, 2)
MACHINE = {"cpu": "Some CPU", "arch": "x86_64", "capability": "AVX2", "threads": 1}


def recordings(root: Path, **files: str) -> Recordings:
    for name, text in files.items():
        path = root / "recordings/torch-2.13.0/ch" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return Recordings(root, "2.13.0")


# Outputs as the pipeline compares them: normalised, so without a final newline (recordings are read so too).
def test_a_run_that_prints_its_recording_passes_and_keeps_its_run(tmp_path):
    result = check(
        BLOCK, BlockRun(Status.OK, "1", "", 0.5, MACHINE), recordings(tmp_path, **{"shapes.txt": "1\n"}), False
    )
    assert (result.status, result.output, result.seconds, result.ran_on.cpu) == (Status.OK, "1", 0.5, "Some CPU")
    assert result.recording == "recordings/torch-2.13.0/ch/shapes.txt" and not result.from_cache


def test_a_run_that_differs_drifts_with_a_diff_naming_the_recording(tmp_path):
    result = check(BLOCK, BlockRun(Status.CACHED, "2\n"), recordings(tmp_path, **{"shapes.txt": "1\n"}), False)
    assert result.status == Status.DRIFT and result.from_cache and result.worth_running_again
    assert "recordings/torch-2.13.0/ch/shapes.txt (recorded)" in result.error and "+2" in result.error


def test_a_run_without_a_recording_says_how_to_make_one(tmp_path):
    result = check(BLOCK, BlockRun(Status.OK, "1\n"), recordings(tmp_path), False)
    assert result.status == Status.UNRECORDED and "make goldens" in result.error


def test_a_measured_value_is_checked_by_its_claim_on_the_machine_it_ran_on(tmp_path):
    recorded = recordings(tmp_path, **{"shapes.txt": "ratio: 1.00x (measured; claim: > 1.5)\n"})
    held = check(BLOCK, BlockRun(Status.OK, "ratio: 3.00x (measured; claim: > 1.5)", machine=MACHINE), recorded, False)
    assert held.status == Status.OK
    missed = check(
        BLOCK, BlockRun(Status.OK, "ratio: 1.20x (measured; claim: > 1.5)", machine=MACHINE), recorded, False
    )
    assert missed.status == Status.CLAIM and "measured on Some CPU" in missed.error


def test_a_claim_is_checked_before_there_is_a_recording_so_goldens_cannot_record_it(tmp_path):
    unreadable = "growth: 35.8 bytes (measured; claim: > 16 bytes)"  # a space before the unit: no number
    new = check(BLOCK, BlockRun(Status.OK, unreadable, machine=MACHINE), recordings(tmp_path), False)
    assert new.status == Status.CLAIM and not new.status.recordable and "is not a number" in new.error
    drifted = recordings(tmp_path, **{"shapes.txt": "old line\nratio: 1.00x (measured; claim: > 1.5)\n"})
    missed = check(BLOCK, BlockRun(Status.OK, "ratio: 1.20x (measured; claim: > 1.5)", machine=MACHINE), drifted, False)
    assert missed.status == Status.CLAIM


FIGURE_BLOCK = Block("ch.md", 1, "bars", "draw()", "docs/ch.md", 3, 2, options={"figure": "b.svg", "alt": "Bars."})


def test_a_figure_is_checked_like_an_output(tmp_path):
    recorded = recordings(tmp_path, **{"bars.txt": "1\n", "bars.svg": "<svg>\n<rect/>\n</svg>\n"})
    same = check(FIGURE_BLOCK, BlockRun(Status.OK, "1", figure="<svg>\n<rect/>\n</svg>\n"), recorded, False)
    assert same.status == Status.OK
    changed = check(FIGURE_BLOCK, BlockRun(Status.OK, "1", figure="<svg>\n<circle/>\n</svg>\n"), recorded, False)
    assert changed.status == Status.DRIFT
    assert "the figure 'b.svg' changed (its recording is recordings/torch-2.13.0/ch/bars.svg)" in changed.error
    assert "-<rect/>" in changed.error and "+<circle/>" in changed.error
    missing = check(
        FIGURE_BLOCK,
        BlockRun(Status.OK, "1", figure="<svg/>"),
        recordings(tmp_path / "x", **{"bars.txt": "1\n"}),
        False,
    )
    assert (
        missing.status == Status.UNRECORDED
        and "no figure recorded at recordings/torch-2.13.0/ch/bars.svg" in missing.error
    )


def test_a_run_that_raised_keeps_its_status_and_error(tmp_path):
    result = check(BLOCK, BlockRun(Status.RAISED, "", "boom"), recordings(tmp_path, **{"shapes.txt": "1\n"}), False)
    assert (result.status, result.error) == (Status.RAISED, "boom")


def test_a_gpu_block_without_a_gpu_shows_its_gpu_recording_or_says_there_is_none(tmp_path):
    gpu = Block("ch.md", 2, "gpu", "print(2)", "docs/ch.md", 7, 6, options={"device": "cuda"})
    missing = check(gpu, BlockRun(Status.SKIPPED), recordings(tmp_path), False)
    assert missing.status == Status.GPU_MISSING and missing.output == ""


def test_a_prediction_of_no_gpu_block_is_an_error(tmp_path):
    predicting = Block("ch.md", 1, "p", "print(1)", "docs/ch.md", 3, 2, options={"predicts": "nothing"})
    result = check(predicting, BlockRun(Status.OK, "x: 1"), recordings(tmp_path, **{"p.txt": "x: 1\n"}), False)
    check_predictions([result])
    assert result.status == Status.MISPREDICTED and "no GPU-only block with that id" in result.error


def test_given_runs_stand_for_a_page_only_when_they_cover_all_its_blocks(tmp_path):
    page = Page("ch.md", (BLOCK,))
    other = Page("other.md", (Block("other.md", 1, "b", "print(1)", "docs/other.md", 3, 2),))
    cache = ExecutionCache(tmp_path / "exec")
    given = {"ch.md": [BlockRun(Status.OK, "1\n")], "other.md": []}
    runs, to_run = _cached_runs([page, other], cache, {"ch.md": "a" * 64, "other.md": "b" * 64}, False, given)
    assert runs == {"ch.md": given["ch.md"]}
    assert [job.page for job in to_run] == ["other.md"]


def test_pages_hash_strings_with_seed_0_whatever_the_build_inherited(monkeypatch, tmp_path):
    """A reader's shell with PYTHONHASHSEED=random would otherwise reorder every printed set of strings
    (`make steadiness` runs each build with a random one)."""
    import os

    from handbook.execution.pipeline import prepare_page_processes

    monkeypatch.setattr(os, "environ", dict(os.environ))  # what prepare_page_processes sets, undone
    monkeypatch.setenv("PYTHONHASHSEED", "random")
    prepare_page_processes(tmp_path)
    assert os.environ["PYTHONHASHSEED"] == "0"


GPU_BLOCK = Block("ch.md", 2, "gpu", "print(2)", "docs/ch.md", 7, 6, options={"device": "cuda"})
DRAWING = Block(
    "ch.md", 3, "fig", "draw()", "docs/ch.md", 11, 10, options={"figure": "a.svg", "alt": "a figure of one thing"}
)
SVG = '<svg xmlns="http://www.w3.org/2000/svg"><rect width="1" height="1"/></svg>'


@pytest.mark.parametrize(
    "block, run",
    [
        # A CPU block stored as not run, or as shown from a recording: it would show any output as run.
        (BLOCK, BlockRun(Status.SKIPPED, "forged\n")),
        (BLOCK, BlockRun(Status.RECORDED, "forged\n")),
        (BLOCK, BlockRun(Status.GPU_MISSING, "")),
        (BLOCK, BlockRun(Status.GPU_RECORDED, "forged\n")),
        (BLOCK, BlockRun(Status.RAISED, "forged\n")),
        # A GPU-only block stored as run on a machine without a GPU.
        (GPU_BLOCK, BlockRun(Status.OK, "forged\n")),
        # A figure that runs a script where the site shows it, or one where the block draws none.
        (DRAWING, BlockRun(Status.OK, "", figure=SVG.replace("<rect", "<script>alert(1)</script><rect"))),
        (BLOCK, BlockRun(Status.OK, "1\n", figure=SVG)),
        # A machine that is not one (its claim's branch would be another CPU's).
        (BLOCK, BlockRun(Status.OK, "1\n", machine={**MACHINE, "threads": "1"})),
        (BLOCK, BlockRun(Status.OK, "1\n", machine={"cpu": "Apple M9", "capability": "AVX2"})),
    ],
    ids=[
        "skipped",
        "recorded",
        "gpu-missing",
        "gpu-recorded",
        "raised",
        "gpu-ran",
        "script",
        "figure",
        "threads",
        "m9",
    ],
)
def test_a_stored_run_that_no_run_of_its_block_could_be_is_not_believed(tmp_path, block, run):
    page = Page("ch.md", (block,))
    for given, cached in (({"ch.md": [run]}, None), ({}, [run])):
        cache = ExecutionCache(tmp_path / "exec")
        if cached:
            cache.store("a" * 64, [BlockRun(Status.OK)])  # an entry, overwritten below as a page could
            (tmp_path / "exec/aa" / f"{'a' * 64}.json").write_text(json.dumps({"runs": [run_as_json(run)]}))
        runs, to_run = _cached_runs([page], cache, {"ch.md": "a" * 64}, False, given)
        assert runs == {} and [job.page for job in to_run] == ["ch.md"]


def test_a_stored_run_that_could_be_is_used_as_its_blocks_with_its_figure_sanitised_again():
    page = Page("ch.md", (BLOCK, GPU_BLOCK, DRAWING))
    stored = [
        BlockRun(Status.OK, "1\n", machine=MACHINE),
        BlockRun(Status.GPU_MISSING, ""),
        BlockRun(Status.OK, "", figure=SVG.replace("<rect", "<!-- a comment --><rect")),
    ]
    runs = stored_runs(page, stored, cuda=False, cached=True)
    assert [r.status for r in runs] == [Status.CACHED, Status.SKIPPED, Status.CACHED]
    assert runs[0].machine == MACHINE and runs[1].output == ""
    assert "comment" not in runs[2].figure and runs[2].figure.startswith("<svg")
