"""Each page's meta description: the first paragraph of its text, so that search engines and link
previews tell the pages apart (`site_description` alone gives every page the same one)."""

from __future__ import annotations

import re

from bs4 import BeautifulSoup
from markupsafe import Markup, escape

LONGEST = 160  # characters: what result pages show before they cut
_FIRST_PARAGRAPH = re.compile(r"<p>.*?</p>", re.DOTALL)


def description(html: str) -> Markup | None:
    """The page's first paragraph as plain text, shortened at a word to at most LONGEST characters,
    escaped: the theme writes it into an attribute as it is."""
    match = _FIRST_PARAGRAPH.search(html)  # parse the one paragraph, not the whole page
    if not match:
        return None
    text = " ".join(BeautifulSoup(match.group(0), "html.parser").get_text().split())
    if len(text) > LONGEST:
        text = text[: text.rfind(" ", 0, LONGEST)].rstrip(" ,;:") + "…"
    return escape(text) if text else None
