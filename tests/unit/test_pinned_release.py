"""The releases the tests mean are read, never spelled: the pinned one (`conftest.PINNED`), the
supported ones (`conftest.SUPPORTED`) and the one installed (`conftest.INSTALLED`). A test that
spells one breaks, or tests a stale release, when the pin moves (issue 44, fact 10)."""

from __future__ import annotations

import re
from pathlib import Path

from conftest import SUPPORTED

TESTS = Path(__file__).resolve().parents[1]

# The files that spell a supported release as synthetic data: a made-up project, environment or
# layout that needs some release name, and would pass with any other. Each says so in one comment,
# `# Synthetic data: <the reason here>`. A test that breaks when the pin moves is not one of them.
SYNTHETIC = {
    "conftest.py": "the deployed fixture deploys a tiny handbook under two release names (mike reads only the names)",
    "site/test_blocks.py": "a directory under recordings/ where a symbolic link is refused (any release's is)",
    "unit/test_cache.py": "an Environment made up for the cache key",
    "unit/test_drift_report.py": "recordings in a temporary tree, and a made-up Environment",
    "unit/test_environment.py": "version strings parsed and ordered",
    "unit/test_failures.py": "a made-up Environment, and the messages that name it",
    "unit/test_labs.py": "the torch version a lab's notebook is written for",
    "unit/test_lock.py": "a made-up wheel and pip report (the repository's locks are read for each of SUPPORTED)",
    "unit/test_notebooks.py": "the torch versions notebooks and their links are made for",
    "unit/test_pipeline.py": "recordings in a temporary tree, under a release the test names",
    "unit/test_prose_guard.py": (
        "numbers in made-up text, and 7708, the ATen headers the 2.13 edition's own recording counts "
        "(a fact of that release, wherever the pin is)"
    ),
    "unit/test_quotes.py": "a made-up output to quote from",
    "unit/test_recordings.py": "the recordings layout under test, in a temporary tree",
    "unit/test_releases.py": "release directories made up to be ordered",
    "unit/test_rendering.py": "a made-up GPU recording's provenance",
    "unit/test_results.py": "a made-up Environment and GPU recording",
    "unit/test_site_report.py": "a made-up Environment and GPU recording",
    "unit/test_source_map.py": "the tag a source map is rendered for",
    "unit/test_source_tree.py": "a made-up wheel and source index",
    "unit/test_steadiness.py": "made-up runs to compare",
    "site/test_tree_guard.py": "a file a page writes under recordings/ (the guard watches every path)",
    "unit/test_versioned_prose.py": "the releases a condition is evaluated for",
    "unit/test_versions.py": (
        "release names deployed and ordered in temporary trees (the pinned torch's index and environments read PINNED)"
    ),
    "unit/test_volatile.py": "recordings in a temporary tree",
    "unit/test_what_changed.py": "two releases compared in a temporary tree (a build's own release reads INSTALLED)",
}


def spelled(text: str) -> list[str]:
    """The supported releases `text` spells: as such, after a `v` or `torch-`, or before a local version (`+cpu`)."""
    return [m[0] for m in re.finditer(r"(?<![\d.])(?:" + "|".join(map(re.escape, SUPPORTED)) + r")(?![\d])", text)]


def test_no_test_spells_a_supported_release_but_synthetic_data():
    spelling = {path.relative_to(TESTS).as_posix() for path in TESTS.rglob("*.py") if spelled(path.read_text())}
    assert sorted(spelling - SYNTHETIC.keys()) == []  # read conftest's PINNED, SUPPORTED or INSTALLED instead
    assert sorted(SYNTHETIC.keys() - spelling) == []  # no longer synthetic: off the list


def comments(text: str) -> list[str]:
    """Each run of `# ` lines at the left margin, as one line."""
    return [" ".join(re.findall(r"^# (.*)$", run, re.MULTILINE)) for run in re.findall(r"(?:^# .*\n)+", text, re.M)]


def test_each_file_of_synthetic_data_says_so():
    missing = [
        name
        for name, reason in SYNTHETIC.items()
        if f"Synthetic data: {reason}" not in comments((TESTS / name).read_text())
    ]
    assert missing == []


def test_the_check_sees_each_way_a_release_is_spelled():
    release = SUPPORTED[0]
    for text in (f'"{release}"', f"v{release}/", f"torch-{release}/a.txt", f"{release}+cpu"):
        assert spelled(text) == [release], text
    assert spelled(f"{release}1 1{release} {release.rsplit('.', 1)[0]}") == []
