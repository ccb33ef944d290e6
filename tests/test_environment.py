"""The project's facts about releases and where the build keeps its caches."""

from __future__ import annotations

from pathlib import Path

import pytest

from handbook.environment import cache_root, release_order, version_key
from handbook.errors import InputError


def test_releases_are_ordered_as_packaging_orders_them():
    releases = ["2.16.0", "2.16.0rc1", "2.15.0", "2.16.0a0", "2.16.0rc2", "2.14.1+cu130", "2.16.0b1"]
    assert sorted(releases, key=release_order) == [
        "2.14.1+cu130",
        "2.15.0",
        "2.16.0a0",
        "2.16.0b1",
        "2.16.0rc1",
        "2.16.0rc2",
        "2.16.0",
    ]
    assert release_order("2.16.0rc1") != release_order("2.16.0")


def test_a_condition_compares_numbers_only_so_that_a_release_candidate_reads_as_its_release():
    assert version_key("2.16.0rc1", 2) == version_key("2.16") == (2, 16)
    assert version_key("2.14.1+cu130") == (2, 14, 1)


def test_a_name_that_is_no_release_says_so():
    with pytest.raises(InputError, match=r"'banana' is not a release number"):
        release_order("banana")


def test_the_cache_root_is_the_repositorys_unless_set(monkeypatch, tmp_path):
    monkeypatch.delenv("HANDBOOK_CACHE_DIR", raising=False)
    assert cache_root(tmp_path) == tmp_path / ".cache" / "handbook"
    monkeypatch.setenv("HANDBOOK_CACHE_DIR", "elsewhere")
    assert cache_root(tmp_path) == Path("elsewhere").absolute()
