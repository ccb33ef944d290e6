"""The site's languages: one build per language, and the switch that leads from a page to its translation.

Each language is an entry of `extra.alternate` (Material's language selector) whose `link` is that
language's site address without a version (`.../handbook/` for English, `.../handbook/zh/` for
Chinese); mike deploys each edition under it (`2.13/`). A page's switch leads to the same page of
the same edition in the other language.
"""

from __future__ import annotations

from urllib.parse import urljoin

DEFAULT = "en"  # the language written first; the others translate it


def deploy_prefix(language: str) -> str:
    """Where a language's editions are in the published branch: the default language's at its root,
    another's under its code (`zh/2.13/`)."""
    return "" if language == DEFAULT else f"{language}/"


def edition_path(own_link: str | None, site_url: str | None) -> str:
    """What follows the language's unversioned address in this build's address: `2.13/` under mike,
    nothing for a build outside it."""
    if not own_link or not site_url:
        return ""
    own, site = own_link.rstrip("/") + "/", site_url.rstrip("/") + "/"
    return site[len(own) :] if site.startswith(own) else ""


def page_alternates(alternates: list[dict], language: str, site_url: str | None, page_url: str) -> list[dict[str, str]]:
    """`alternates` (extra.alternate) with each link leading to `page_url` of this edition in that language."""
    own = next((alternate.get("link") for alternate in alternates if alternate.get("lang") == language), None)
    edition = edition_path(own, site_url)
    return [
        {**alternate, "link": urljoin(urljoin(alternate["link"].rstrip("/") + "/", edition), page_url)}
        for alternate in alternates
        if alternate.get("link")
    ]
