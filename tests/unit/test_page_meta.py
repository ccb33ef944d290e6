"""Page descriptions: the function, then the built editions (every page a description of its own)."""

from handbook.page_meta import LONGEST, description, front_matter


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


def test_front_matter_problems_are_found_without_a_build():
    meta = {"description": 'a "quoted" <b>', "search": {"exclude": True}, "hide": ["toc"]}
    assert front_matter(meta, "docs/p.md") == []
    assert meta["description"] == "a &#34;quoted&#34; &lt;b&gt;"
    assert front_matter({"hide": ["toc", "<x>"]}, "docs/p.md") == [
        "docs/p.md: front matter `hide:` is a list of navigation, toc, footer, feedback, tags"
    ]
