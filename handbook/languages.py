"""The site's languages, the one table: one build per language, each with its configuration and its
pages; and the switch that leads from a page to its translation.

Each language is an entry of `extra.alternate` (Material's language selector) whose `link` is that
language's site address without a version (`.../handbook/` for English, `.../handbook/zh/` for
Chinese); mike deploys each edition under it (`2.13/`). A page's switch leads to the same page of
the same edition in the other language.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from urllib.parse import urljoin

from handbook.markdown_structure import prose_lines


@dataclass(frozen=True)
class Language:
    code: str  # its configuration's `theme.language`, and its catalog's (`messages.CATALOGS`)
    config: str  # its build's MkDocs configuration, under the repository root
    docs_dir: str  # its pages (the configuration's `docs_dir`)
    labs_dir: str  # its labs (`handbook.labs`): the original's run, a translation's carry the same code


# English first: the language written first, whose pages run; the others translate it. Each build
# reads its own configuration; the Makefile spells them again (tests/unit/test_languages.py).
LANGUAGES = (
    Language("en", "mkdocs.yml", "docs", "labs"),
    Language("zh", "mkdocs.zh.yml", "docs-zh", "labs-zh"),
)
DEFAULT = LANGUAGES[0].code
TRANSLATIONS = LANGUAGES[1:]
CONFIGS = tuple(language.config for language in LANGUAGES)
DOCS_DIRS = tuple(language.docs_dir for language in LANGUAGES)
LABS_DIRS = tuple(language.labs_dir for language in LANGUAGES)


# Languages written without spaces between words: a line break inside a paragraph, which Markdown
# keeps and a browser shows as a space, is dropped between two of their characters.
UNSPACED = {"zh", "ja"}
_WIDE = r"[\u2e80-\u303f\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff00-\uffef]"
_ENDS_WIDE = re.compile(_WIDE + r"$")
_STARTS_WIDE = re.compile(r"^" + _WIDE)
_STARTS_BLOCK = re.compile(r"^\s*(?:[-*+]\s|\d+[.)]\s|#|>|\||!!!|\?\?\?|<|\{:|\[\^)")


def without_soft_breaks(markdown: str, language: str) -> str:
    """`markdown` with each line break inside a paragraph of prose joined where both sides are wide
    (CJK) characters, in a language written without spaces; elsewhere unchanged."""
    if language not in UNSPACED:
        return markdown
    lines = markdown.split("\n")
    prose = prose_lines(lines)
    joined: list[str] = []
    for index, line in enumerate(lines):
        previous = joined[-1] if joined else ""
        if (
            index
            and prose[index]
            and prose[index - 1]
            and _ENDS_WIDE.search(previous.rstrip())
            and _STARTS_WIDE.match(line.lstrip())
            and not _STARTS_BLOCK.match(line)
        ):
            joined[-1] = previous.rstrip() + line.lstrip()
        else:
            joined.append(line)
    return "\n".join(joined)


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
