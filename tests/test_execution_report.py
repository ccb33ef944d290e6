"""`execution-report.json`, and `python -m handbook check-site`: a site the plugin did not make is refused."""

from __future__ import annotations

import json

import pytest

PAGE = (
    "# Demo\n\n## Section\n\nLinked to [TensorImpl](pytorch:c10/core/TensorImpl.h#TensorImpl).\n\n"
    '```python exec="on"\nprint("ran")\n```\n'
)


@pytest.fixture
def built(project):
    project.write("docs/demo.md", PAGE)
    assert project.goldens().returncode == 0
    result = project.build()
    assert result.returncode == 0, result.stderr
    return project


def check_site(project):
    return project.run("-m", "handbook", "check-site", "site")


def test_the_plugins_build_of_this_tree_passes_the_check(built):
    report = json.loads((built.root / "site/execution-report.json").read_text())
    assert [(b["page"], b["status"]) for b in report["blocks"]] == [("demo.md", "cached")]  # run by goldens
    assert report["blocks"][0]["timeout"] == 120  # beside its seconds: the headroom tools/headroom.py reports
    result = check_site(built)
    assert result.returncode == 0, result.stderr


def test_a_site_built_without_the_handbook_plugin_fails_the_check_loudly(built):
    """A generator that ignores MkDocs plugins (or a config without this one) still builds the pages:
    their blocks, if run at all, ran outside the engine and were checked against nothing."""
    config = built.root / "mkdocs.yml"
    config.write_text(config.read_text().replace("  - handbook:\n      sections_exempt: [index.md]\n", ""))
    assert "handbook" not in config.read_text().split("plugins:")[1].split("markdown_extensions")[0]
    assert built.build().returncode == 0  # the generator itself is content
    result = check_site(built)
    assert result.returncode == 1
    assert "execution-report.json is missing: the handbook plugin did not run" in result.stderr


def test_a_site_of_another_tree_fails_the_check(built):
    page = built.root / "docs/demo.md"
    page.write_text(page.read_text() + "\nA later sentence.\n")
    result = check_site(built)
    assert result.returncode == 1 and "built from another state of the tree" in result.stderr
