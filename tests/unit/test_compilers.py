"""C++ compiles take turns across a build's pages (handbook/execution/compilers); in a real build."""

from __future__ import annotations

import os
import shutil
import subprocess

from handbook.environment import installed_torch
from handbook.execution.pipeline import COMPILERS, prepare_page_processes

# One block starts two compiles at once, each a second or two of constexpr work, and watches
# them: it fails if both compilers (cc1plus) ever run at the same time.
PAGE = """
# Demo

## Compiles

See [TensorImpl](pytorch:c10/core/TensorImpl.h#TensorImpl).

```python exec="on" timeout="120"
import os, shutil, subprocess, tempfile, time
from pathlib import Path

import psutil

source = Path(tempfile.mkdtemp()) / "slow.cpp"
source.write_text(
    "constexpr long spin(long n) { long s = 0; for (long i = 0; i < n; ++i) s += i % 7; return s; }\\n"
    "static_assert(spin(600000) > 0);\\n"
)
command = ["g++", "-fsyntax-only", "-fconstexpr-ops-limit=1099511627776",
           "-fconstexpr-loop-limit=2147483647", str(source)]


def compilers(process):
    try:
        return [p for p in psutil.Process(process.pid).children(recursive=True) if p.name() == "cc1plus"]
    except psutil.NoSuchProcess:
        return []


first = subprocess.Popen(command)
deadline = time.monotonic() + 60
while not compilers(first) and first.poll() is None and time.monotonic() < deadline:
    time.sleep(0.005)
second = subprocess.Popen(command)
overlapped = waited = False
while first.poll() is None:
    overlapped = overlapped or bool(compilers(first) and compilers(second))
    try:  # the second is still flock, waiting for the lock, while the first compiles
        queued = psutil.Process(second.pid).name() == "flock" and not compilers(second)
    except psutil.NoSuchProcess:
        queued = False
    waited = waited or bool(compilers(first) and queued)
    time.sleep(0.01)
print("both compiled:", first.wait() == 0 and second.wait() == 0)
print("two compilers at once:", overlapped)
print("the second waited on the lock:", waited)
print("g++ is", shutil.which("g++"))
print("lock", os.environ["HANDBOOK_COMPILE_LOCK"])
```
"""


def test_two_compiles_on_a_page_take_turns(project):
    project.write("docs/demo.md", PAGE)
    result = project.goldens()
    assert result.returncode == 0, result.stderr
    recorded = "".join(project.recordings().values())
    assert "both compiled: True\n" in recorded
    assert "two compilers at once: False\n" in recorded
    assert "the second waited on the lock: True\n" in recorded
    assert f"g++ is {COMPILERS / 'g++'}\n" in recorded
    # The lock is the build's own, in its cache, whatever the process that ran the tests had set;
    # one per torch (editions built side by side take turns each among their own pages).
    assert f"lock .cache/compile-{installed_torch().version}.lock\n" in recorded


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
