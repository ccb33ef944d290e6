"""Each page's meta description: the first paragraph of its text, so that search engines and link
previews tell the pages apart (`site_description` alone gives every page the same one)."""

from __future__ import annotations

import re

from bs4 import BeautifulSoup

LONGEST = 160  # characters: what result pages show before they cut
_FIRST_PARAGRAPH = re.compile(r"<p>.*?</p>", re.DOTALL)


def description(html: str) -> str | None:
    """The page's first paragraph as plain text, shortened at a word to at most LONGEST characters."""
    match = _FIRST_PARAGRAPH.search(html)  # parse the one paragraph, not the whole page
    if not match:
        return None
    text = " ".join(BeautifulSoup(match.group(0), "html.parser").get_text().split())
    if len(text) <= LONGEST:
        return text or None
    return text[: text.rfind(" ", 0, LONGEST)].rstrip(" ,;:") + "…"
