"""tools/tested_tree.py: the tests run again when anything they read changed, and only then."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "tools"))

from tested_tree import digest, read_lines, run  # noqa: E402


@pytest.fixture
def tree(tmp_path) -> Path:
    root = tmp_path / "tree"
    (root / "docs").mkdir(parents=True)
    (root / "docs/page.md").write_text("# A page\n")
    (root / ".gitignore").write_text("site/\n.cache/\n")
    subprocess.run(["git", "init", "-q"], cwd=root, check=True)
    subprocess.run(["git", "add", "-A"], cwd=root, check=True)
    (root / "site").mkdir()
    (root / "site/index.html").write_text("<p>built</p>")
    (root / ".cache").mkdir()
    return root


def test_the_digest_follows_content_sites_and_variables_and_not_a_touch(tree):
    sites = [tree / "site"]

    def digest_of(tree, sites, variables):
        return digest(read_lines(tree, sites, variables))

    first = digest_of(tree, sites, {})
    os.utime(tree / "docs/page.md", ns=(1, 1))  # a checkout or a touch: same content
    assert digest_of(tree, sites, {}) == first
    (tree / "docs/page.md").write_text("# A page, edited\n")
    edited = digest_of(tree, sites, {})
    assert edited != first
    (tree / "docs/new.md").write_text("untracked, not ignored\n")
    assert digest_of(tree, sites, {}) != edited
    (tree / "docs/new.md").unlink()
    (tree / ".cache/scratch").write_text("ignored")
    assert digest_of(tree, sites, {}) == edited
    os.utime(tree / "site/index.html", ns=(2, 2))  # the site built again
    rebuilt = digest_of(tree, sites, {})
    assert rebuilt != edited
    assert digest_of(tree, sites, {"ATEN_CPU_CAPABILITY": "default"}) != rebuilt
    assert digest_of(tree, sites, {"HOME": "/elsewhere"}) == rebuilt  # a variable nothing reads


def a_command(tree: Path, exit_status: int = 0, then: str = "pass") -> list[str]:
    """A stand-in for the tests: counts its runs in a file outside the tree."""
    count = tree.parent / "runs"
    code = (
        f"from pathlib import Path; p = Path({str(count)!r}); "
        f"p.write_text(str(int(p.read_text()) + 1 if p.exists() else 1)); {then}; raise SystemExit({exit_status})"
    )
    return [sys.executable, "-c", code]


def runs(tree: Path) -> int:
    count = tree.parent / "runs"
    return int(count.read_text()) if count.exists() else 0


def test_tests_that_passed_on_this_tree_do_not_run_again_until_it_changes(tree, capsys):
    record, sites = tree / ".cache/passed", [tree / "site"]
    assert run(tree, record, sites, a_command(tree)) == 0
    assert run(tree, record, sites, a_command(tree)) == 0
    assert runs(tree) == 1
    assert "not run again" in capsys.readouterr().out
    assert run(tree, record, sites, a_command(tree), again=True) == 0
    assert runs(tree) == 2
    (tree / "docs/page.md").write_text("# Changed\n")
    assert run(tree, record, sites, a_command(tree)) == 0
    assert runs(tree) == 3


def test_a_failing_run_is_not_recorded_and_forgets_the_last_pass(tree):
    record, sites = tree / ".cache/passed", [tree / "site"]
    assert run(tree, record, sites, a_command(tree)) == 0
    assert run(tree, record, sites, a_command(tree, 3), again=True) == 3
    assert not record.exists()
    assert run(tree, record, sites, a_command(tree)) == 0
    assert runs(tree) == 3


def test_tests_that_change_what_they_read_are_not_recorded_and_it_says_what(tree, capsys):
    record, sites = tree / ".cache/passed", [tree / "site"]
    edit = f"Path({str(tree / 'site/index.html')!r}).write_text('rebuilt by the tests')"
    assert run(tree, record, sites, a_command(tree, then=edit)) == 0
    assert not record.exists()
    said = capsys.readouterr().err.splitlines()
    assert said[0] == "The tests changed what they read: not recorded as passed on this tree."
    assert [line.split()[:3] for line in said[1:]] == [["-", "index.html", "12"], ["+", "index.html", "20"]]
