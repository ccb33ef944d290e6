"""The one result model: a run, a checked result, a site, and the JSON a run is kept as."""

from __future__ import annotations

import json

import pytest

from handbook.environment import Environment
from handbook.execution.blocks import Block, Page
from handbook.execution.recordings import GpuRecording
from handbook.execution.results import (
    BlockResult,
    BlockRun,
    CorruptEntry,
    SiteRun,
    run_as_json,
    run_from_json,
)
from handbook.execution.status import Status

# Synthetic data: a made-up Environment and GPU recording

MACHINE = {"cpu": "Some CPU", "arch": "x86_64", "capability": "AVX2", "threads": 1}
CPU_BLOCK = Block("ch.md", 1, "shapes", "print(1)", "docs/ch.md", 3, 2, options={"predicts": "gpu"})
GPU_BLOCK = Block("ch.md", 2, "gpu", "print(2)", "docs/ch.md", 7, 6, options={"device": "cuda"})
PAGE = Page("ch.md", (CPU_BLOCK, GPU_BLOCK))


def a_site() -> SiteRun:
    site = SiteRun(Environment("2.13.0+cpu", "abc", "3.11.9", "cpu"), [PAGE], executed_pages=["ch.md"], seconds=1.5)
    gpu = BlockResult(
        Status.GPU_RECORDED,
        "x: 1",
        block=GPU_BLOCK,
        gpu=GpuRecording("NVIDIA H200", "2.13.0", "2026-11-30", "x: 1"),
    )
    cpu = BlockResult.of(
        CPU_BLOCK, BlockRun(Status.OK, "x: 1\n", "", 0.25, MACHINE, ["sleep 9"]), recording="r.txt", ran_again=True
    )
    cpu.predicted = gpu
    site.results["ch.md"] = [cpu, gpu]
    return site


def test_a_result_of_a_run_keeps_every_field_of_the_run():
    run = BlockRun(Status.OK, "out", "err", 0.5, MACHINE, ["sleep 9"])
    result = BlockResult.of(CPU_BLOCK, run, recording="r.txt")
    assert run_as_json(result) == run_as_json(run)
    assert result.block is CPU_BLOCK and result.recording == "r.txt"
    assert result.ran_on.capability == "AVX2" and BlockRun(Status.OK).ran_on is None


def test_a_run_survives_its_json_form():
    run = BlockRun(Status.CACHED, "out", "err", 0.5, MACHINE, ["sleep 9"], "<svg/>\n")
    assert run_from_json(json.loads(json.dumps(run_as_json(run)))) == run


@pytest.mark.parametrize(
    "entry",
    [
        [],
        {"output": "x"},  # no status
        {"status": "no such status"},
        {"status": "ok", "output": 7},
        {"status": "ok", "machine": "x86"},
        {"status": "ok", "figure": ["<svg/>"]},
        {"status": "ok", "surprise": 1},
    ],
)
def test_a_run_of_the_wrong_shape_is_corrupt(entry):
    with pytest.raises(CorruptEntry):
        run_from_json(entry)


def test_the_status_groups_decide_passing_and_running_again():
    assert BlockResult(Status.OK, block=CPU_BLOCK).passed
    assert not BlockResult(Status.DRIFT, block=CPU_BLOCK).passed
    assert BlockResult(Status.CLAIM, block=CPU_BLOCK).worth_running_again
    assert BlockResult(Status.DRIFT, block=CPU_BLOCK, from_cache=True).worth_running_again
    assert not BlockResult(Status.DRIFT, block=CPU_BLOCK).worth_running_again
    site = a_site()
    assert site.ok and site.failures() == []
    site.results["ch.md"][0].status = Status.DRIFT
    assert not site.ok and site.failures() == [site.results["ch.md"][0]]
