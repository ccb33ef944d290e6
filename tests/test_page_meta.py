"""Page descriptions: the function, then the built editions (every page a description of its own)."""

import re
from collections import Counter
from pathlib import Path

import pytest
from site_browser import EDITION_SITES, stale

from handbook.page_meta import LONGEST, description


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
