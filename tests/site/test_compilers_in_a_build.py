"""C++ compiles take turns across a build's pages (handbook/execution/compilers), in a real build."""

from __future__ import annotations

from handbook.environment import installed_torch
from handbook.execution.pipeline import COMPILERS

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
