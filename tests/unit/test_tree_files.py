"""The repository's files: inside the tree, through no link, read as UTF-8, written whole."""

from __future__ import annotations

import os

import pytest

from handbook.tree_files import TreeError, confined, read_text, write_atomically


def test_a_path_outside_the_tree_or_through_a_link_is_refused(tmp_path):
    (tmp_path / "snippets").mkdir()
    assert confined(tmp_path, "snippets/a.py", "docs/p.md:3: included file") == tmp_path.resolve() / "snippets/a.py"
    for outside in ("../x.py", "/etc/passwd", "snippets/../../x.py"):
        with pytest.raises(TreeError, match="is outside the repository"):
            confined(tmp_path, outside, "docs/p.md:3: included file")
    (tmp_path / "snippets" / "link.py").symlink_to("/etc/hostname")
    with pytest.raises(TreeError, match="snippets/link.py is a symbolic link"):
        confined(tmp_path, "snippets/link.py", "docs/p.md:3: included file")


def test_a_file_that_is_not_utf8_is_named(tmp_path):
    (tmp_path / "bad.md").write_bytes(b"caf\xe9\n")
    with pytest.raises(TreeError, match=r"docs/bad.md: not UTF-8 text \(byte 0xe9 at offset 3\)"):
        read_text(tmp_path / "bad.md", "docs/bad.md")


def test_a_write_is_whole_or_absent_and_leaves_no_temporary_file(tmp_path, monkeypatch):
    target = tmp_path / "deep" / "out.txt"
    write_atomically(target, "first\n")
    assert target.read_text() == "first\n"

    def fail(*args):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", fail)
    with pytest.raises(OSError, match="No space left"):
        write_atomically(target, "second\n")
    assert target.read_text() == "first\n" and sorted(p.name for p in target.parent.iterdir()) == ["out.txt"]
