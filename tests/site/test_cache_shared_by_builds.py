"""The execution cache shared by two builds of one tree that run at once (handbook/execution/cache.py)."""

import json
import shutil
import subprocess
import sys

from handbook.execution import page_history

CONCURRENT_PAGE = """
# Page {n}

## Blocks

See [TensorImpl](pytorch:c10/core/TensorImpl.h#TensorImpl).

```python exec="on"
import torch
print(torch.arange({n}).sum())
```
"""


def test_two_builds_in_one_tree_at_once_both_succeed_and_share_the_caches(project):
    for n in range(1, 5):
        project.write(f"docs/page{n}.md", CONCURRENT_PAGE.format(n=n))
    assert project.goldens(HANDBOOK_CACHE="0").returncode == 0
    builds = [
        subprocess.Popen(
            [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", site],
            cwd=project.root,
            env=project.environment(),
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        for site in ("site-a", "site-b")
    ]
    outputs = [build.communicate(timeout=600)[0] for build in builds]
    assert [build.returncode for build in builds] == [0, 0], "\n".join(outputs)
    for site in ("site-a", "site-b"):
        assert "tensor(6)" in (project.root / site / "page4/index.html").read_text()
    history = json.loads((project.root / ".cache/page-history.json").read_text())
    peaks = history[page_history.PEAKS_KEY]
    assert sorted(history["seconds"]) == sorted(peaks) == [f"page{n}.md" for n in range(1, 5)]
    assert all(peak > 2**20 for peak in peaks.values())  # a page's Python holds more than a MiB
    entries = list((project.root / ".cache/exec").rglob("*"))
    assert len([e for e in entries if e.suffix == ".json"]) == 4 and not [e for e in entries if e.suffix == ".tmp"]
    shutil.rmtree(project.root / ".cache/runs")  # the execute step's record: with it, a build runs nothing
    again = project.build(HANDBOOK_EXECUTE="1")
    assert "executed 0 page(s)" in again.stderr  # every page from the cache the two builds wrote
