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


def test_a_render_only_build_fails_the_check_whatever_its_blocks_show(built):
    result = built.build(HANDBOOK_EXECUTE="0")
    assert result.returncode == 0, result.stderr  # a preview builds
    checked = check_site(built)
    assert checked.returncode == 1
    assert "demo.md, block block-1 (docs/demo.md:8): recorded (a render-only build: it did not run)" in checked.stderr


@pytest.mark.parametrize(
    "tamper, said",
    [
        (lambda blocks: blocks[0].update(status="skipped"), "demo.md, block block-1 (docs/demo.md:8): skipped"),
        (lambda blocks: blocks[0].update(status="gpu-missing"), "block-1 (docs/demo.md:8): gpu-missing"),
        (lambda blocks: blocks.clear(), "demo.md, block block-1 (docs/demo.md:8): not in the report"),
        (lambda blocks: blocks.append({**blocks[0], "id": "other"}), "demo.md, block other: in the report, not in"),
        (
            lambda blocks: blocks.append({**blocks[0], "page": "gone.py", "id": "setup-1"}),
            "gone.py, block setup-1: in the report, not in docs/ or labs/",
        ),
    ],
    ids=["skipped", "gpu-missing on a CPU block", "left out", "not the tree's", "a lab not the tree's"],
)
def test_a_report_whose_blocks_did_not_all_run_here_fails_the_check(built, tamper, said):
    path = built.root / "site/execution-report.json"
    report = json.loads(path.read_text())
    tamper(report["blocks"])
    path.write_text(json.dumps(report))
    result = check_site(built)
    assert result.returncode == 1 and said in result.stderr


LAB = (
    "# %% [markdown]\n# # A lab\n\n# %% [markdown]\n# ## One {#one}\n#\n"
    "# See [TensorImpl](pytorch:c10/core/TensorImpl.h#TensorImpl).\n\n"
    '# %% tags=["starter"] exercise="one"\nanswer = ...\n\n'
    '# %% tags=["solution"]\nanswer = 1\n\n'
    '# %% tags=["check"]\nprint("correct" if answer == 1 else f"wrong: {answer}, not 1")\n\n'
    '# %% tags=["mistake"]\nanswer = 2\n'
)


def test_a_labs_blocks_are_checked_as_a_pages(project):
    """A lab's cells are blocks of the tree: the plugin's build reports them, and check-site holds them
    to it as it holds a chapter's."""
    project.write("docs/demo.md", PAGE)
    project.write("labs/one.py", LAB)
    assert project.goldens().returncode == 0
    result = project.build()
    assert result.returncode == 0, result.stderr
    assert check_site(project).returncode == 0, check_site(project).stderr
    path = project.root / "site/execution-report.json"
    report = json.loads(path.read_text())
    assert {b["page"] for b in report["blocks"]} == {"demo.md", "one.py"}
    report["blocks"] = [b for b in report["blocks"] if b["id"] != "one-check"]
    path.write_text(json.dumps(report))
    result = check_site(project)
    assert result.returncode == 1 and "one.py, block one-check (labs/one.py:16): not in the report" in result.stderr
