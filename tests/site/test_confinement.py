"""A page's view of the machine: read-only but for its own directories, in a process of its own, with no
power to undo it; and a clear fallback."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import textwrap

import pytest
from probes import REFUSED

from handbook.execution import confinement

# Run in a child: the namespace is that process's, never the test's. Each attempt a page could make to
# write outside its own directories, or to undo its view, and what came of it.
PROBE = textwrap.dedent(
    """
    import ctypes, os, subprocess, sys
    from handbook.execution.confinement import confine
    top, hole, outside = sys.argv[1:4]
    print(confine([top], [hole, "/nonexistent"], 2**20))

    def attempt(what, action):
        try:
            action()
            print(what, "done")
        except OSError as refused:
            print(what, "refused", refused.strerror)

    def write(path):
        with open(path, "w") as file:
            file.write("x")

    def fill(path, size):
        with open(path, "wb") as file:
            file.write(b"x" * size)

    def setns(path):
        libc = ctypes.CDLL(None, use_errno=True)
        fd = os.open(path, os.O_RDONLY)
        if libc.setns(fd, 0) != 0:
            raise OSError(ctypes.get_errno(), os.strerror(ctypes.get_errno()))

    def command(*words):
        done = subprocess.run(words, capture_output=True)
        if done.returncode:
            raise OSError(1, "refused")

    attempt("write tree", lambda: write(os.path.join(top, "new.txt")))
    attempt("write hole", lambda: write(os.path.join(hole, "new.txt")))
    attempt("write outside", lambda: write(outside))
    attempt("write the parent's root", lambda: write(f"/proc/{os.getppid()}/root{top}/new.txt"))
    attempt("remount", lambda: command("mount", "-o", "remount,rw", "/"))
    attempt("umount", lambda: command("umount", "-l", "/"))
    attempt("setns", lambda: setns(f"/proc/{os.getppid()}/ns/mnt"))
    attempt("fill /dev/shm", lambda: fill("/dev/shm/big", 2 * 2**20))
    """
)


def probe(tmp_path, env=None, prefix=()) -> list[str]:
    top, hole = tmp_path / "tree", tmp_path / "tree" / "cache"
    hole.mkdir(parents=True)
    outside = tmp_path / "outside.txt"
    result = subprocess.run(
        [*prefix, sys.executable, "-c", PROBE, str(top), str(hole), str(outside)],
        capture_output=True,
        text=True,
        env={**os.environ, **(env or {})},
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    (top / "new.txt").unlink(missing_ok=True)
    if os.path.exists("/dev/shm/big"):  # the machine's /dev/shm, written by an unconfined probe
        os.unlink("/dev/shm/big")
    return result.stdout.splitlines()


@pytest.mark.skipif(REFUSED is not None, reason=f"this machine refuses a private read-only mount: {REFUSED}")
def test_the_file_system_is_read_only_but_for_the_pages_own_and_it_cannot_undo_that(tmp_path):
    assert probe(tmp_path) == [
        "the file system read-only but for their own directories, without privileges",
        "write tree refused Read-only file system",
        "write hole done",
        "write outside refused Read-only file system",
        "write the parent's root refused Permission denied",
        "remount refused refused",
        "umount refused refused",
        "setns refused Permission denied",
        "fill /dev/shm refused No space left on device",  # its own, as large as its limit
    ]
    (tmp_path / "tree" / "after.txt").write_text("the test's own view is unchanged\n")
    assert not os.path.exists("/dev/shm/big")


def test_the_switch_leaves_the_tree_writable_says_so_and_still_takes_every_privilege(tmp_path):
    lines = probe(tmp_path, env={"HANDBOOK_READ_ONLY_TREE": "0"})
    assert lines[0].startswith("the tree writable (HANDBOOK_READ_ONLY_TREE=0), checked by the tree guard alone, ")
    assert lines[1:4] == ["write tree done", "write hole done", "write outside done"]
    if os.geteuid() == 0:
        assert lines[0].endswith(", without privileges")
        assert lines[5:8] == ["remount refused refused", "umount refused refused", "setns refused Permission denied"]


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
    assert "), checked by the tree guard alone, without privileges" in lines[0]
    if prefix:
        assert "refused: [Errno 1] Operation not permitted)" in lines[0]
    assert lines[1:3] == ["write tree done", "write hole done"]


VERIFY = textwrap.dedent(
    """
    import sys, time
    from handbook.execution.confinement import confine
    if sys.argv[2] == "confine":
        confine([sys.argv[1]], [])
    print("ready", flush=True)
    time.sleep(60)
    """
)


@pytest.mark.skipif(REFUSED is not None, reason=f"this machine refuses a private read-only mount: {REFUSED}")
@pytest.mark.parametrize("confined", [True, False], ids=["confined", "as it says it is, unconfined"])
def test_the_engine_sees_a_view_for_itself(tmp_path, confined):
    child = subprocess.Popen(
        [sys.executable, "-c", VERIFY, str(tmp_path), "confine" if confined else "not"],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert child.stdout.readline() == "ready\n"
        assert confinement.verified(child.pid, [str(tmp_path), "/usr"]) is confined
    finally:
        child.kill()
        child.wait()


def test_pages_are_expected_to_get_a_view_only_where_this_process_could_make_one(monkeypatch):
    assert confinement.expected() == (REFUSED is None)
    monkeypatch.setenv("HANDBOOK_READ_ONLY_TREE", "0")
    assert not confinement.expected()
