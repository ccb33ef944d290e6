"""C++ compiles take turns across a build's pages (handbook/execution/compilers); in a real build."""

from __future__ import annotations

import os
import shutil
import subprocess

from handbook.execution.pipeline import COMPILERS, prepare_page_processes


def test_the_compilers_run_the_real_one_without_a_lock(tmp_path):
    environment = {**os.environ, "PATH": f"{COMPILERS}{os.pathsep}{os.environ['PATH']}"}
    environment.pop("HANDBOOK_COMPILE_LOCK", None)
    for name in ("c++", "g++", "cc", "gcc"):
        result = subprocess.run([name, "--version"], env=environment, capture_output=True, text=True)
        assert result.returncode == 0 and "Free Software Foundation" in result.stdout, (name, result.stderr)


def test_without_flock_compiles_run_as_they_come(monkeypatch, tmp_path):
    bare = tmp_path / "bin"  # a PATH with a compiler and no flock
    bare.mkdir()
    (bare / "g++").symlink_to(shutil.which("g++", path=os.defpath))
    monkeypatch.setattr(os, "environ", dict(os.environ))  # what prepare_page_processes sets, undone
    monkeypatch.setenv("PATH", str(bare))
    prepare_page_processes(tmp_path)
    assert os.environ["PATH"] == str(bare)
    monkeypatch.setenv("PATH", f"{bare}{os.pathsep}{os.path.dirname(shutil.which('flock', path=os.defpath))}")
    prepare_page_processes(tmp_path)
    assert os.environ["PATH"].split(os.pathsep)[0] == str(COMPILERS)


def test_compilers_of_two_checkouts_on_one_path_take_the_lock_once(tmp_path):
    """A build started from another build (a test's, mike's) finds both checkouts' compilers on
    PATH; the compile must take the lock once, not wait on itself."""
    other = tmp_path / "other-checkout" / "compilers"
    shutil.copytree(COMPILERS, other, symlinks=True)
    environment = {
        **os.environ,
        "PATH": os.pathsep.join([str(other), str(COMPILERS), os.environ["PATH"]]),
        "HANDBOOK_COMPILE_LOCK": str(tmp_path / "compile.lock"),
    }
    result = subprocess.run(["c++", "--version"], env=environment, capture_output=True, text=True, timeout=60)
    assert result.returncode == 0 and "Free Software Foundation" in result.stdout, result.stderr
