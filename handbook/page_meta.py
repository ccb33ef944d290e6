"""Each page's meta description: the first paragraph of its text, so that search engines and link
previews tell the pages apart (`site_description` alone gives every page the same one); and a page's
front matter, which the theme writes into the page's head as it is: data, like everything a page holds."""

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


# Front matter a page may carry, and what each may hold: the theme writes some keys into the page as
# they are (`title` into <title>, `icon` as a template path), before the Content-Security-Policy.
FRONT_MATTER = {
    "description": "text",  # the meta description, escaped here (and by overrides/main.html)
    "search": "a mapping of exclude: true/false or boost: a number",
    "hide": "a list of navigation, toc, footer, feedback, tags",
}
HIDDEN = {"navigation", "toc", "footer", "feedback", "tags", "path"}


def front_matter(meta: dict, where: str) -> list[str]:
    """What is wrong with a page's front matter (each problem names `where`); its description escaped in place."""
    problems = [
        f"{where}: front matter `{key}:` is not one a page may carry (only {', '.join(FRONT_MATTER)})"
        for key in meta
        if key not in FRONT_MATTER
    ]
    if "description" in meta:
        if isinstance(meta["description"], str):
            meta["description"] = escape(meta["description"])
        else:
            problems.append(f"{where}: front matter `description:` is {FRONT_MATTER['description']}")
    search = meta.get("search", {})
    if not isinstance(search, dict) or not all(
        (key == "exclude" and isinstance(value, bool)) or (key == "boost" and type(value) in (int, float))
        for key, value in search.items()
    ):
        problems.append(f"{where}: front matter `search:` is {FRONT_MATTER['search']}")
    hide = meta.get("hide", [])
    if not isinstance(hide, list) or not all(isinstance(item, str) and item in HIDDEN for item in hide):
        problems.append(f"{where}: front matter `hide:` is {FRONT_MATTER['hide']}")
    return problems
