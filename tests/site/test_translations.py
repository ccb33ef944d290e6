"""A translation's sections against their originals' revisions; its blocks against the original's."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest
from translation_pages import ORIGINAL, TRANSLATED

from handbook import translations
from handbook.execution.blocks import scan_docs
from handbook.translations import marked, section_texts

REPO = Path(__file__).resolve().parents[2]


def test_block_differences_name_the_page_line_and_block(project):
    project.write("docs/t.md", ORIGINAL)
    project.write("docs-zh/t.md", TRANSLATED.replace("print(1)", "print(2)"))
    [original] = scan_docs(project.root, "docs")
    [translated] = scan_docs(project.root, "docs-zh")
    [problem] = translations.block_differences("docs-zh/t.md", list(original.blocks), list(translated.blocks))
    assert problem.startswith("docs-zh/t.md:9: block 1 (block-1)") and "unchanged" in problem
    same = scan_docs(project.root, "docs")[0]
    assert translations.block_differences("docs-zh/t.md", list(original.blocks), list(same.blocks)) == []


def test_the_date_an_original_changed_comes_from_its_history(project):
    root = project.root

    def git(*args):
        subprocess.run(["git", *args], cwd=root, check=True, capture_output=True)

    git("init", "-q")
    project.write("docs/t.md", ORIGINAL)
    git("add", "-A")
    git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "one", "--date=2026-01-02T00:00:00")
    before = translations.revision(section_texts(ORIGINAL)["views-and-copies"][1])
    project.write("docs/t.md", ORIGINAL.replace("shares memory", "shares the memory"))
    git("add", "-A")
    env_date = {"GIT_COMMITTER_DATE": "2026-03-04T00:00:00"}
    subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "two"],
        cwd=root,
        check=True,
        capture_output=True,
        env={**__import__("os").environ, **env_date},
    )
    assert translations.changed_on(root, "docs/t.md", "views-and-copies", before) == "2026-03-04"
    project.write("docs/t.md", ORIGINAL.replace("shares memory", "shares no memory"))  # not committed: today
    from datetime import UTC, datetime

    assert (
        translations.changed_on(root, "docs/t.md", "views-and-copies", before) == datetime.now(UTC).date().isoformat()
    )


ZH_CONFIG = """
INHERIT: mkdocs.yml
docs_dir: docs-zh
site_dir: site-zh
theme:
  name: mkdocs
  language: zh
plugins:
  - handbook:
      sections_exempt: [index.md]
      translates: docs
  - markdown-exec:
      languages: [python, py]
"""


@pytest.fixture
def translated_project(project):
    project.write("docs/index.md", "# Home\n\nWelcome.\n")
    project.write("docs-zh/index.md", marked("# Home\n\nWelcome.\n", "# 首页\n\n欢迎。\n"))
    project.write("snippets/t.py", 'print("from the original")\n')
    page = (
        ORIGINAL.replace("print(1)", '--8<-- "snippets/t.py"')
        .replace(
            "## Strides {#the-strides}",
            "## Strides {#the-strides}\n\nSee [`TensorImpl`](pytorch:c10/core/TensorImpl.h#TensorImpl).",
        )
        .replace(
            "A view shares memory.", "A view shares memory ([`TensorImpl`](pytorch:c10/core/TensorImpl.h#TensorImpl))."
        )
    )
    project.write("docs/t.md", page)
    zh = (
        TRANSLATED.replace("print(1)", '--8<-- "snippets/t.py"')
        .replace(
            "## 步长 {#the-strides}",
            "## 步长 {#the-strides}\n\n见 [`TensorImpl`](pytorch:c10/core/TensorImpl.h#TensorImpl)。",
        )
        .replace("视图共享内存。", "视图共享内存（[`TensorImpl`](pytorch:c10/core/TensorImpl.h#TensorImpl)）。")
    )
    project.write("docs-zh/t.md", marked(page, zh))
    project.write("mkdocs.zh.yml", ZH_CONFIG)
    recorded = project.goldens()
    assert recorded.returncode == 0, recorded.stderr
    built = project.build()
    assert built.returncode == 0, built.stderr
    return project


def test_a_translation_builds_from_the_originals_results_running_nothing(translated_project):
    project = translated_project
    built = project.run("-m", "mkdocs", "build", "--strict", "-f", "mkdocs.zh.yml")
    assert built.returncode == 0, built.stderr
    assert "ran no page" in built.stderr or "executed 0 page(s)" in built.stderr, built.stderr
    html = (project.root / "site-zh" / "t" / "index.html").read_text()
    assert "from the original" in html and "视图共享内存" in html and "本节译文已过时" not in html
    report = (project.root / "site-zh" / "how-this-site-is-built" / "index.html").read_text()
    assert "每一节译文都对应英文原文的当前版本。" in report


def test_in_the_chinese_edition_the_builds_own_words_are_chinese(translated_project):
    """The notes under a block, the generated pages and the header the site's templates write."""
    project = translated_project
    shutil.copytree(REPO / "overrides", project.root / "overrides")
    project.write(
        "mkdocs.zh-material.yml",
        "INHERIT: mkdocs.zh.yml\ntheme:\n  name: material\n  custom_dir: overrides\n  language: zh\n",
    )
    built = project.run("-m", "mkdocs", "build", "--strict", "-f", "mkdocs.zh-material.yml")
    assert built.returncode == 0, built.stderr
    site = project.root / "site-zh"
    page = (site / "t" / "index.html").read_text()
    assert '<span class="filename">输出</span>' in page and "Output</span>" not in page
    assert "：在本次构建中运行。" in page or "：在之前的构建中运行；" in page
    assert "本站的每个示例都在以下环境中执行：" in page and ">本站如何构建</a>" in page
    assert "How this site is built" not in page and "executed with" not in page
    report = (site / "how-this-site-is-built" / "index.html").read_text()
    assert 'id="the-state-every-page-starts-in">每个页面的初始状态' in report
    assert "源码索引" in (site / "source-map" / "index.html").read_text()


def test_an_english_edit_marks_the_chinese_section_outdated(translated_project):
    project = translated_project
    english = project.root / "docs" / "t.md"
    english.write_text(english.read_text().replace("A view shares memory", "A view shares its base's memory"))
    built = project.run("-m", "mkdocs", "build", "--strict", "-f", "mkdocs.zh.yml")
    assert built.returncode == 0, built.stderr
    assert "translation outdated: docs-zh/t.md § views-and-copies" in built.stderr
    html = (project.root / "site-zh" / "t" / "index.html").read_text()
    section = html.split('id="views-and-copies"')[1].split('id="the-strides"')[0]
    assert "本节译文已过时" in section and "#views-and-copies" in section
    report = (project.root / "site-zh" / "how-this-site-is-built" / "index.html").read_text()
    assert "译文状态" in report and "张量 § views-and-copies" in report
    listed = project.run("-m", "handbook", "translations", "--config", "mkdocs.zh.yml", "--check")
    assert listed.returncode == 1 and "docs-zh/t.md § views-and-copies: the original changed" in listed.stdout
    marked_again = project.run(
        "-m", "handbook", "translations", "--config", "mkdocs.zh.yml", "--mark", "t.md", "--check"
    )
    assert marked_again.returncode == 0 and "0 outdated section(s)" in marked_again.stdout


def test_a_translation_whose_block_differs_fails_naming_it_and_keeps_the_recordings(translated_project):
    project = translated_project
    before = project.recordings()
    page = project.root / "docs-zh" / "t.md"
    page.write_text(page.read_text().replace('--8<-- "snippets/t.py"', 'print("translated code")'))
    built = project.run("-m", "mkdocs", "build", "--strict", "-f", "mkdocs.zh.yml")
    assert built.returncode != 0
    assert "docs-zh/t.md:" in built.stderr and "block 1" in built.stderr and "unchanged" in built.stderr
    assert project.recordings() == before


def test_a_translations_build_names_its_own_pages_in_every_message(translated_project):
    """Its quotes, its source links and its blocks' failures: docs-zh/..., never the English file."""
    project = translated_project
    page = project.root / "docs-zh" / "t.md"
    broken = "值是 <!-- out nosuch /x/ -->，见 [z](pytorch:nope.h)。视图共享内存"
    page.write_text(page.read_text().replace("视图共享内存", broken, 1))
    project.write("snippets/t.py", 'print("drifted")\n')  # the original's block, run by this build, drifts
    built = project.run("-m", "mkdocs", "build", "--strict", "-f", "mkdocs.zh.yml")
    assert built.returncode != 0
    assert "docs-zh/t.md:" in built.stderr and "<!-- out nosuch /x/ -->: docs-zh/t.md has no block 'nosuch'" in (
        built.stderr
    )
    assert re.search(r"docs-zh/t\.md:\d+: pytorch:nope\.h: ", built.stderr), built.stderr
    assert "docs-zh/t.md, block 1 (t), snippets/t.py:1: the output differs from its recording" in built.stderr
    assert "docs/t.md" not in built.stderr


def test_a_translation_that_drops_the_heading_of_an_outdated_section_fails_naming_it(translated_project):
    """Its notice would have had no heading to sit under: the page would have shown stale text, silently."""
    project = translated_project
    english = project.root / "docs" / "t.md"
    english.write_text(english.read_text().replace("A stride is a step.", "A stride is a step, in elements."))
    page = project.root / "docs-zh" / "t.md"
    page.write_text(page.read_text().replace("## 步长 {#the-strides}\n", ""))
    built = project.run("-m", "mkdocs", "build", "--strict", "-f", "mkdocs.zh.yml")
    assert built.returncode != 0
    assert "docs-zh/t.md: the original's section 'the-strides' (docs/t.md:" in built.stderr
