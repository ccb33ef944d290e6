"""The "Source map" page: every linked file and symbol, by chapter, with the sections citing it."""

from __future__ import annotations

from collections import defaultdict

from handbook import markdown_structure
from handbook.languages import DEFAULT
from handbook.messages import Words
from handbook.sources.links import Citation

PAGE = "source-map.md"


def title_of(markdown: str, page: str) -> str:
    """The page's name on the source map: its title (`markdown_structure.title_of`), else its path."""
    return markdown_structure.title_of(markdown) or page


def render(citations: list[Citation], titles: dict[str, str], tag: str, language: str = DEFAULT) -> str:
    """The page's Markdown, in the site's `language`."""
    words = Words(language)
    by_page: dict[str, dict[tuple[str, str], list[Citation]]] = defaultdict(lambda: defaultdict(list))
    for citation in citations:
        by_page[citation.page][(citation.resolved.path, citation.resolved.symbol)].append(citation)
    lines = [
        f"# {words('Source map')}",
        "",
        words(
            "Every PyTorch source file and symbol this handbook links to, at tag `{tag}`, grouped by chapter, "
            "with the sections that cite it. Lines are found by symbol in the installed torch at build time.",
            tag=tag,
        ),
        "",
    ]
    head = f"| {words('Source')} | {words('Lines')} | {words('Cited in')} |"
    for page in sorted(by_page, key=lambda p: list(titles).index(p) if p in titles else 0):
        lines += [f"## {titles.get(page, page)}", "", head, "|---|---|---|"]
        for (path, symbol), cited in sorted(by_page[page].items()):
            resolved = cited[0].resolved
            shown = f"`{path}`" + (f" · `{symbol}`" if symbol else "")
            span = f"{resolved.first}-{resolved.last}" if resolved.first else words("file")
            sections = sorted({c.section for c in cited if c.section})
            where = ", ".join(
                f"[{markdown_structure.shown_title(s)}]({page}#{markdown_structure.heading_id(s)})" for s in sections
            )
            where = where or f"[{titles.get(page, page)}]({page})"
            lines.append(f"| [{shown}]({resolved.url}) | {span} | {where} |")
        lines.append("")
    return "\n".join(lines)
