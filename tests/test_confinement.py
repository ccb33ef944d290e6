"""A page's read-only view of the tree: in a process of its own, with writable holes, and a clear fallback."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import textwrap

import pytest
from probes import REFUSED

pytestmark = pytest.mark.full  # runs pages, snippets or processes of its own (not `make test-fast`)

# Run in a child: the namespace is that process's, never the test's.
PROBE = textwrap.dedent(
    """
    import os, sys
    from handbook.execution.confinement import confine
    top, hole = sys.argv[1], sys.argv[2]
    print(confine([top], [hole, "/nonexistent"]))
    for path in (os.path.join(top, "new.txt"), os.path.join(hole, "new.txt")):
        try:
            open(path, "w").write("x")
            print("wrote", os.path.basename(os.path.dirname(path)))
        except OSError as refused:
            print("refused", os.path.basename(os.path.dirname(path)), refused.strerror)
    """
)


def probe(tmp_path, env=None, prefix=()) -> list[str]:
    top, hole = tmp_path / "tree", tmp_path / "tree" / "cache"
    hole.mkdir(parents=True)
    result = subprocess.run(
        [*prefix, sys.executable, "-c", PROBE, str(top), str(hole)],
        capture_output=True,
        text=True,
        env={**os.environ, **(env or {})},
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    return result.stdout.splitlines()


@pytest.mark.skipif(REFUSED is not None, reason=f"this machine refuses a private read-only mount: {REFUSED}")
def test_the_tree_is_read_only_but_for_its_holes_and_only_for_that_process(tmp_path):
    assert probe(tmp_path) == [
        "the tree and the build's caches read-only",
        "refused tree Read-only file system",
        "wrote cache",
    ]
    (tmp_path / "tree" / "after.txt").write_text("the test's own view is unchanged\n")


def test_the_switch_leaves_the_tree_writable_and_says_so(tmp_path):
    assert probe(tmp_path, env={"HANDBOOK_READ_ONLY_TREE": "0"}) == [
        "the tree writable (HANDBOOK_READ_ONLY_TREE=0), checked by the tree guard alone",
        "wrote tree",
        "wrote cache",
    ]


def test_where_mounts_are_refused_the_page_runs_on_and_says_why(tmp_path):
    """Where this machine refuses the mount (a writer's own account, macOS), as it is; where it
    allows it, as root without CAP_SYS_ADMIN, which is refused as a writer's own account is."""
    prefix: tuple[str, ...] = ()
    if REFUSED is None:
        if not shutil.which("setpriv"):
            pytest.fail("needs util-linux's setpriv, to run a probe without CAP_SYS_ADMIN", pytrace=False)
        prefix = ("setpriv", "--bounding-set=-sys_admin", "--inh-caps=-sys_admin")
    lines = probe(tmp_path, prefix=prefix)
    assert lines[0].startswith("the tree writable (a private read-only mount was refused: ")
    assert lines[0].endswith("), checked by the tree guard alone")
    if prefix:
        assert "refused: [Errno 1] Operation not permitted)" in lines[0]
    assert lines[1:] == ["wrote tree", "wrote cache"]
