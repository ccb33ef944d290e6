"""The tests' two folders, tests/unit/ and tests/site/, hold no two test modules of one file name.

pytest imports a test module by its file name (the folders are not packages), so a second module of
that name fails the whole run's collection ("import file mismatch"). Only `make test` collects both
folders; this test lets `make test-fast` find it first."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

TESTS = Path(__file__).resolve().parents[1]


def test_no_two_test_modules_share_a_file_name():
    names = Counter(path.name for path in TESTS.rglob("test_*.py"))
    assert [name for name, count in names.items() if count > 1] == []
