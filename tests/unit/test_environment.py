"""The project's facts about releases, the installed torch, and where the build keeps its caches."""

from __future__ import annotations

import importlib.metadata
import tempfile
from pathlib import Path

import pytest

from handbook.environment import (
    Environment,
    TorchIdentity,
    cache_root,
    gpu_possible,
    installed_torch,
    release_of,
    release_order,
    temporary_base,
    version_key,
)
from handbook.errors import InputError

# Synthetic data: version strings parsed and ordered


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


def test_identity_is_read_without_importing_torch():
    identity = installed_torch()
    # The wheel's metadata may leave out the local tag (`+cu130`) that torch.__version__ carries.
    assert identity.release == release_of(importlib.metadata.version("torch")) and len(identity.git_version) == 40
    assert identity.tag == f"v{identity.release}"


def test_a_build_without_a_release_tag_links_its_commit():
    assert TorchIdentity("2.14.0a0+gitabc", "abc123").tag == "abc123"


@pytest.mark.parametrize("cuda, line", [(None, "cuda: Optional[str] = None"), ("13.0", "cuda: Optional[str] = '13.0'")])
def test_the_identity_is_read_from_version_py_as_torch_writes_it(tmp_path, cuda, line):
    (tmp_path / "torch").mkdir()
    (tmp_path / "torch" / "version.py").write_text(
        f"from typing import Optional\n\n__version__ = '2.15.0+cu132'\ndebug = False\n{line}\ngit_version = 'd0f2'\n"
    )
    identity = installed_torch(tmp_path)
    assert identity == TorchIdentity("2.15.0+cu132", "d0f2", cuda)
    assert identity.release == "2.15.0"
    assert Environment.of(identity).release == "2.15.0"
    if cuda is None:
        assert not gpu_possible(identity)  # a CPU build never runs CUDA, whatever the machine has


def test_the_builds_temporary_directory_is_shallow_enough_for_a_pages_sockets(monkeypatch, tmp_path):
    """A DataLoader's workers failed with 'AF_UNIX path too long' under a deep TMPDIR (`make steadiness`)."""
    deep = tmp_path / ("a-temporary-directory-with-a-long-name-" * 3) / "and-one-more-level"
    deep.mkdir(parents=True)
    monkeypatch.setattr(tempfile, "tempdir", str(deep))
    assert temporary_base() == "/tmp"
    monkeypatch.setattr(tempfile, "tempdir", "/var/tmp")
    assert temporary_base() == "/var/tmp"
