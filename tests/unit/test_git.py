"""`handbook.git`: what a build only shows is None without a checkout; what a command changes raises."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from handbook import git


def checkout(path: Path) -> Path:
    for args in (["init", "-q", "-b", "main"], ["config", "user.email", "t@t"], ["config", "user.name", "t"]):
        subprocess.run(["git", *args], cwd=path, check=True)
    (path / "page.md").write_text("one\n")
    subprocess.run(["git", "add", "page.md"], cwd=path, check=True)
    subprocess.run(["git", "commit", "-qm", "first"], cwd=path, check=True)
    return path


def test_outside_a_checkout_what_is_only_shown_is_none(tmp_path):
    assert git.head(tmp_path) is None
    assert git.last_changed(tmp_path, "page.md") is None
    assert git.file_history(tmp_path, "page.md") == [] and git.file_at(tmp_path, "HEAD", "page.md") == ""


def test_a_checkout_says_its_commit_its_changes_and_a_files_history(tmp_path):
    root = checkout(tmp_path)
    commit = git.head(root)
    assert commit and len(commit) == 40 and git.changed_paths(root) == frozenset()
    (root / "page.md").write_text("two\n")
    (root / "new.md").write_text("new\n")
    assert git.changed_paths(root) == {"page.md", "new.md"}
    assert git.file_at(root, commit, "page.md") == "one\n"
    assert [c for c, _ in git.file_history(root, "page.md")] == [commit] and git.last_changed(root, "page.md")
    (root / "sub").mkdir()
    assert git.head(root / "sub") is None  # inside a checkout, but not its top


def test_a_command_that_fails_raises_naming_it_and_what_git_said(tmp_path):
    with pytest.raises(git.GitError, match=r"git rev-parse no-such-ref failed \(exit 128\): fatal: "):
        git.run(checkout(tmp_path), "rev-parse", "no-such-ref")


def test_a_file_copied_within_a_branch_leaves_the_work_tree_and_its_index_alone(tmp_path):
    root = checkout(tmp_path)
    git.run(root, "branch", "gh-pages")  # a branch not checked out, as gh-pages is
    (root / "page.md").write_text("edited, not staged\n")
    commit = git.copy_within_branch(root, "gh-pages", "page.md", "copy/page.md", "copied")
    assert git.run(root, "show", f"{commit}:copy/page.md") == "one\n"
    assert git.run(root, "status", "--porcelain") == " M page.md\n"
