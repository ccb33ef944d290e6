"""The prose guard in a real build: a number typed in prose that another release prints fails it."""

from __future__ import annotations

from conftest import INSTALLED


def test_a_build_fails_on_a_typed_number_from_another_release(project):
    project.write(
        "docs/demo.md",
        "# Demo\n\n## Rows\n\nSee [TensorImpl](pytorch:c10/core/TensorImpl.h#TensorImpl).\n\n```python "
        'exec="on"\nprint("rows: 94")\n```\n\nThe table has 94 rows.\n',
    )
    assert project.goldens().returncode == 0
    assert project.build().returncode == 0
    project.write("recordings/torch-2.99.0/demo/block-1.txt", "rows: 96\n")
    project.write("docs/demo.md", (project.root / "docs/demo.md").read_text().replace("has 94 rows", "has 96 rows"))
    result = project.build()
    assert result.returncode != 0
    assert (
        f"docs/demo.md:11: the prose says 96, which this page prints with torch 2.99.0 but not with torch {INSTALLED}"
        in result.stderr
    )
