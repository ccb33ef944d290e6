"""Page descriptions in built sites: every page of each edition has its own, and front matter the
theme would write as it is fails the build."""

import re
import shutil
from collections import Counter
from pathlib import Path

import pytest
from site_browser import EDITION_SITES, stale

REPO = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("release", sorted(EDITION_SITES))
def test_every_page_of_each_edition_has_its_own_description(release):
    root = EDITION_SITES[release]
    problem = stale(root)
    assert problem is None, problem
    found = {}
    for page in sorted(Path(root).glob("**/index.html")):
        meta = re.findall(r'<meta name="description" content="([^"]*)"', page.read_text())
        assert len(meta) == 1, f"{page}: {len(meta)} descriptions"
        found[page.relative_to(root).as_posix()] = meta[0]
    assert len(found) > 10, f"only {len(found)} pages in {root}"
    repeated = [text for text, count in Counter(found.values()).items() if count > 1]
    assert not repeated, {page: text for page, text in found.items() if text in repeated}


HOSTILE_FRONT_MATTER = """---
description: '"><script>alert(1)</script><meta name="x'
---
# Demo

A paragraph.
"""


def _material(project) -> None:
    """The project built with the site's theme and overrides (its head: the policy, the description)."""
    shutil.copytree(REPO / "overrides", project.root / "overrides")
    config = project.root / "mkdocs.yml"
    config.write_text(config.read_text().replace("theme: mkdocs", "theme:\n  name: material\n  custom_dir: overrides"))


def test_a_front_matter_description_is_text_written_after_the_policy(project):
    _material(project)
    project.write("docs/index.md", HOSTILE_FRONT_MATTER)
    result = project.build()
    assert result.returncode == 0, result.stderr
    html = (project.root / "site/index.html").read_text()
    assert "<script>alert(1)" not in html and "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert html.index('http-equiv="Content-Security-Policy"') < html.index('name="description"')


@pytest.mark.parametrize(
    "front_matter, said",
    [
        ("title: '</title><script>alert(1)</script>'", "front matter `title:` is not one a page may carry"),
        ("icon: ../../../etc/passwd", "front matter `icon:` is not one a page may carry"),
        ("description: [a, b]", "front matter `description:` is text"),
        ("search:\n  exclude: '<script>'", "front matter `search:` is a mapping"),
    ],
)
def test_front_matter_the_theme_would_write_as_it_is_fails_the_build_naming_the_page(project, front_matter, said):
    project.write("docs/index.md", f"---\n{front_matter}\n---\n# Demo\n\nA paragraph.\n")
    result = project.build()
    assert result.returncode != 0
    assert f"docs/index.md: {said}" in result.stderr
