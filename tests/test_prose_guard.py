"""The prose guard: a number typed in prose that another release prints and this one does not."""

from __future__ import annotations

from pathlib import Path

from handbook.execution.recordings import recorded_releases
from handbook.prose.guard import contradictions, numbers

REPO = Path(__file__).resolve().parent.parent


def test_numbers_are_tokens_without_thousands_separators():
    assert numbers("7708 headers, 2.13.0+cpu, 4,000,768 bytes, line 204. cu130 x2") == {
        "7708",
        "2.13.0",
        "4000768",
        "204",
    }


def test_the_handbook_passes_and_an_injected_number_fails_naming_page_and_line():
    releases = recorded_releases(REPO)
    markdown = (REPO / "docs/setup.md").read_text()
    assert contradictions(REPO, "setup.md", markdown, releases) == []
    # What the 2.13 edition printed, typed into prose shared by every edition.
    injected = markdown.replace(
        "## A map of the source tree\n", "## A map of the source tree\n\nThe wheel ships 7708 ATen headers.\n", 1
    )
    line = injected.splitlines().index("The wheel ships 7708 ATen headers.") + 1
    problems = contradictions(REPO, "setup.md", injected, releases)
    assert problems and all(
        p.startswith(
            f"docs/setup.md:{line}: the prose says 7708, which this page prints with torch 2.13.0 but not with torch "
        )
        for p in problems
    )
    assert {p.rsplit("but not with torch ", 1)[1].split(";")[0] for p in problems} == set(releases) - {"2.13.0"}


def test_versioned_prose_and_quotes_are_not_flagged():
    releases = recorded_releases(REPO)
    markdown = (
        "<!-- if torch == 2.13 -->\n7708 headers\n<!-- end if -->\n<!-- out tree-wheel_files /ATen "
        "headers\\s+(\\d+)/ --> headers\n"
    )
    assert contradictions(REPO, "setup.md", markdown, releases) == []


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
        "docs/demo.md:11: the prose says 96, which this page prints with torch 2.99.0 but not with torch 2.13.0"
        in result.stderr
    )
