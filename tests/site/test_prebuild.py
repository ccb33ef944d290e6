"""The execute step: `python -m handbook execute`, its record, and the render step that reads it."""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "tools"))

from compare_sites import differences  # noqa: E402

PAGE = """
# Demo

## Shapes

Linked to [TensorImpl](pytorch:c10/core/TensorImpl.h#TensorImpl).

```python exec="on"
import torch
print("strides:", torch.arange(6).view(2, 3).stride())
```
"""
RECORD = ".cache/runs"


def recorded(project):
    project.write("docs/demo.md", PAGE)
    result = project.goldens()
    assert result.returncode == 0, result.stderr
    shutil.rmtree(project.root / ".cache")  # what goldens ran: the execute step runs it again
    return project


def execute(project):
    return project.run("-m", "handbook", "execute")


def build(project, site: str):
    return project.run("-m", "mkdocs", "build", "--strict", "--site-dir", site)


def test_execute_then_a_render_only_build_gives_the_site_a_build_alone_gives(project):
    recorded(project)
    executed = execute(project)
    assert executed.returncode == 0, executed.stderr
    assert "executed 1 page(s)" in executed.stderr and "recorded the run in .cache/runs/" in executed.stderr
    rendered = build(project, "site-a")
    assert rendered.returncode == 0, rendered.stderr
    assert "ran no page: the execute step's record of this tree is fresh" in rendered.stderr
    assert "executed" not in rendered.stderr
    shutil.rmtree(project.root / ".cache")  # no record, no execution cache: the build runs the page itself
    alone = build(project, "site-b")
    assert alone.returncode == 0, alone.stderr
    assert "executed 1 page(s)" in alone.stderr
    assert differences(project.root / "site-a", project.root / "site-b") == []
    assert "strides: (3, 1)" in (project.root / "site-a/demo/index.html").read_text()


def test_a_record_of_another_tree_is_not_used(project):
    recorded(project)
    assert execute(project).returncode == 0
    project.write("docs/demo.md", PAGE.replace("Linked to", "Now linked to"))
    again = build(project, "site")
    assert again.returncode == 0, again.stderr
    assert "ran no page" not in again.stderr and "executed 0 page(s)" in again.stderr  # the execution cache


def test_a_forged_or_corrupt_record_is_not_shown(project):
    recorded(project)
    assert execute(project).returncode == 0
    (record,) = (project.root / RECORD).glob("*.json")
    record.write_text(record.read_text().replace("strides: (3, 1)", "strides: forged"))
    forged = build(project, "site")  # checked again, the forged run drifts: its page runs again, fresh
    assert forged.returncode == 0, forged.stderr
    assert "executed 1 page(s)" in forged.stderr and "ran no page" not in forged.stderr
    assert "a stored run was not believed, and its page not taken from it: the execute step's record: " in forged.stderr
    assert "forged" not in (project.root / "site/demo/index.html").read_text()
    record.write_text('{"key": 1')
    corrupt = build(project, "site")
    assert corrupt.returncode == 0 and "ran no page" not in corrupt.stderr, corrupt.stderr


def test_an_execute_step_that_finds_problems_fails_naming_them_and_records_nothing(project):
    recorded(project)
    project.write("docs/demo.md", PAGE.replace("#TensorImpl)", "#NoSuchSymbol)"))
    failed = execute(project)
    assert failed.returncode == 1
    assert "error: 1 source link problem(s)" in failed.stderr and "docs/demo.md" in failed.stderr
    assert "Traceback" not in failed.stderr
    project.write("docs/demo.md", PAGE.replace('print("strides:"', 'print("changed:"'))
    drifted = execute(project)
    assert drifted.returncode == 1 and "the output differs from its recording" in drifted.stderr
    assert not list((project.root / RECORD).glob("*.json"))


@pytest.mark.parametrize("status", ["skipped", "gpu-missing", "recorded", "gpu-recorded"])
def test_a_record_that_says_a_block_was_not_run_is_not_believed(project, status):
    """A stored run marked skipped, recorded or GPU-only showed any output, or none, as 'ran in this
    build': a store is checked against what its blocks are, and this one is not used."""
    recorded(project)
    assert execute(project).returncode == 0
    (record,) = (project.root / RECORD).glob("*.json")
    data = json.loads(record.read_text())
    for runs in data["runs"].values():
        for run in runs:
            run.update(status=status, output="forged output\n")
    record.write_text(json.dumps(data))
    shutil.rmtree(project.root / ".cache/exec")  # no cached run to stand for the page either: it runs
    forged = build(project, "site")
    assert forged.returncode == 0, forged.stderr
    assert "executed 1 page(s)" in forged.stderr and "ran no page" not in forged.stderr
    assert "a stored run was not believed, and its page not taken from it: the execute step's record: " in forged.stderr
    assert "forged" not in (project.root / "site/demo/index.html").read_text()
