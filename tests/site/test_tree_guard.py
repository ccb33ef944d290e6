"""What the build reads, hashed before and after pages run: any change is found and named."""

from __future__ import annotations

import os

import pytest

from handbook.execution.tree_guard import GUARDED, TreeChangedError, TreeGuard, changes, snapshot

# Synthetic data: a file a page writes under recordings/ (the guard watches every path)


def test_every_guarded_place_is_hashed_and_byte_code_is_not(project):
    for name in GUARDED:
        project.write(name if "." in name else f"{name}/sub/file.txt", "x\n")
    project.write("handbook/__pycache__/module.pyc", "byte code\n")
    project.write("site/index.html", "built\n")
    assert set(snapshot(project.root)) >= {"mkdocs.yml", "docs/sub/file.txt", "handbook/sub/file.txt"}
    assert {"labs/sub/file.txt", "labs-zh/sub/file.txt"} <= set(snapshot(project.root))  # a lab's cells run too
    assert not [path for path in snapshot(project.root) if "__pycache__" in path or path.startswith("site/")]


def test_added_changed_removed_and_linked_files_are_named(project):
    project.write("docs/kept.md", "# Kept\n")
    project.write("docs/gone.md", "# Gone\n")
    before = snapshot(project.root)
    project.write("docs/injected.md", "# Injected\n")
    (project.root / "docs/gone.md").unlink()
    (project.root / "mkdocs.yml").write_text("site_name: edited\n")
    (project.root / "snippets/link.py").symlink_to("/etc/passwd")
    assert changes(before, snapshot(project.root)) == [
        "docs/gone.md (removed)",
        "docs/injected.md (added)",
        "mkdocs.yml (changed)",
        "snippets/link.py (added)",
    ]


def test_a_fifo_a_block_leaves_is_named_without_blocking_the_build(project):
    before = snapshot(project.root)
    os.mkfifo(project.root / "docs" / "pipe.md")  # opening it to read would wait for a writer forever
    assert changes(before, snapshot(project.root)) == ["docs/pipe.md (added)"]
    assert snapshot(project.root)["docs/pipe.md"].startswith("not a regular file (mode p")


def test_the_guard_names_the_page_that_ended_and_those_beside_it(project):
    """By their files as the build names them: a translation's build names its own pages (docs-zh/)."""
    guard = TreeGuard(project.root)
    assert guard.unchanged("docs-zh/a.md", ["docs-zh/b.md"])
    project.write("recordings/torch-2.13.0/a/x.txt", "rewritten\n")
    assert not guard.unchanged("docs-zh/a.md", ["docs-zh/b.md", "docs-zh/c.md"])
    assert not guard.unchanged("docs-zh/b.md", [])  # once changed, nothing more is kept from the build
    with pytest.raises(TreeChangedError) as raised:
        guard.raise_if_changed(["docs-zh/a.md", "docs-zh/b.md", "docs-zh/c.md"])
    assert (
        "when docs-zh/a.md ended (or a page running beside it: docs-zh/b.md, docs-zh/c.md): "
        "recordings/torch-2.13.0/a/x.txt (added)"
    ) in str(raised.value)


def test_a_change_after_the_last_page_ended_is_found_too(project):
    guard = TreeGuard(project.root)
    assert guard.unchanged("docs/a.md", [])
    project.write("docs/late.md", "# Written by a process the page left\n")
    with pytest.raises(TreeChangedError, match=r"after the pages ended \(by a process one of them left: docs/a.md\)"):
        guard.raise_if_changed(["docs/a.md"])
