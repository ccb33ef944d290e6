"""`make steadiness`: runs under other conditions, compared block by block."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

# Synthetic data: made-up runs to compare

REPO = Path(__file__).resolve().parents[2]
spec = importlib.util.spec_from_file_location("steadiness", REPO / "tools" / "steadiness.py")
steadiness = importlib.util.module_from_spec(spec)
sys.modules["steadiness"] = steadiness  # its dataclasses look their module up
spec.loader.exec_module(steadiness)

NAMES = ["1: locale and time zone", "2: busy, elsewhere"]


def block(output: str, status: str = "ok", passes: bool = True, seconds: float = 1.0, **details) -> dict:
    fields = {"page": "p.md", "id": "b", "source": "snippets/p/a.py:3", "error": "", "figure": "", "timeout": 120.0}
    return {**fields, "output": output, "status": status, "passes": passes, "seconds": seconds, **details}


def runs(*blocks: list[dict]) -> list[dict]:
    return [{"torch": "2.13.0+cpu", "blocks": list(run)} for run in blocks]


def test_an_output_that_differs_between_two_runs_varies_with_its_lines():
    found = steadiness.compare(runs([block("a\nleft 1000ms")], [block("a\nleft 998ms")]), NAMES)
    (varying,) = found["varying"]
    assert (varying["page"], varying["id"], varying["source"]) == ("p.md", "b", "snippets/p/a.py:3")
    assert varying["differs"][-2:] == ["-left 1000ms", "+left 998ms"]


def test_measured_values_are_compared_by_their_claims_not_their_digits():
    first, second = (block(f"x vs y: {value}x (measured; claim: > 2)") for value in ("3.4", "2.9"))
    assert steadiness.compare(runs([first], [second]), NAMES)["varying"] == []


def test_a_block_that_fails_in_one_run_only_varies_and_one_that_always_fails_is_failing():
    flaky = steadiness.compare(runs([block("x")], [block("x", "timeout", False, error="ran past")]), NAMES)
    assert flaky["varying"][0]["runs"] == {NAMES[0]: "passes", NAMES[1]: "timeout"}
    assert flaky["varying"][0]["differs"] == ["ran past"]
    broken = steadiness.compare(runs([block("x", "drift", False)], [block("x", "drift", False)]), NAMES)
    assert broken["varying"] == [] and broken["failing"][0]["status"] == "drift"


def test_headroom_is_the_largest_share_of_the_timeout_in_any_run():
    found = steadiness.compare(runs([block("x", seconds=12)], [block("x", seconds=66)]), NAMES)
    assert found["headroom"] == [
        {"page": "p.md", "id": "b", "source": "snippets/p/a.py:3", "largest_share_of_timeout": 0.55, "timeout": 120.0}
    ]


def test_blocks_that_did_not_run_after_a_failure_are_counted_under_the_failure_not_listed():
    first = [block("a", id="one"), block("b", id="two")]
    second = [block("", "timeout", False, id="one", error="ran past"), block("", "not-run", False, id="two")]
    found = steadiness.compare(runs(first, second), NAMES)
    assert [entry["id"] for entry in found["varying"]] == ["one"]
    assert found["varying"][0]["later_blocks_not_run"] == 1
