"""Page descriptions: the function, then the built editions (every page a description of its own)."""

import re
import shutil
from collections import Counter
from pathlib import Path

import pytest
from site_browser import EDITION_SITES, stale

from handbook.page_meta import LONGEST, description, front_matter

REPO = Path(__file__).resolve().parents[2]


def test_the_first_paragraph_as_plain_text():
    html = '<h1 id="t">Title</h1><p>What does <code>x.view</code> share with\n<a href="a/">x</a>?</p><p>Later.</p>'
    assert description(html) == "What does x.view share with x?"


def test_a_long_paragraph_is_cut_at_a_word():
    words = "stride " * 60
    text = description(f"<p>{words}</p>")
    assert len(text) <= LONGEST + 1 and text.endswith("stride…")


def test_quotes_and_markup_characters_are_escaped_for_the_attribute():
    text = description('<p>The "modified by an inplace operation" error &amp; <code>a&lt;b</code></p>')
    assert text == "The &#34;modified by an inplace operation&#34; error &amp; a&lt;b"


def test_a_page_without_a_paragraph_has_none():
    assert description("<h1>Only a title</h1><pre>code</pre>") is None


@pytest.mark.full
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


def test_front_matter_problems_are_found_without_a_build():
    meta = {"description": 'a "quoted" <b>', "search": {"exclude": True}, "hide": ["toc"]}
    assert front_matter(meta, "docs/p.md") == []
    assert meta["description"] == "a &#34;quoted&#34; &lt;b&gt;"
    assert front_matter({"hide": ["toc", "<x>"]}, "docs/p.md") == [
        "docs/p.md: front matter `hide:` is a list of navigation, toc, footer, feedback, tags"
    ]
