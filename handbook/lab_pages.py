"""A lab's page: mkdocs-jupyter's HTML of the lab's notebook, fitted to the site.

mkdocs-jupyter renders the notebook the build wrote (`handbook.labs`): nbconvert's Markdown
for the text cells, Pygments for the code, each cell in JupyterLab's markup. That markup
brings what the site refuses or does not need: inline `<script>`s (a clipboard element,
MathJax's configuration, a Mermaid loader that imports from a CDN), inline `<style>`s
(about 600 kB of JupyterLab's stylesheet per page), a MathJax `<script src>` from a CDN,
each code cell twice over (a nested duplicate with the same id), a `clipboard-copy` element
with an attribute named `,`, and headings whose ids are slugs of their ASCII letters alone.

So the page keeps what mkdocs-jupyter made of each cell, and nothing else: each text cell's
rendered HTML (its headings given the ids the lab's sections have, with the theme's
permalink), each code cell's highlighted listing in the markup of the chapters' listings
(Material then gives it its copy button and keyboard focus), each output as the chapters
show one, the solutions folded in a `<details>` the reader opens, and under the title the
lab's notebook to download and to open in Colab. The table of contents is made from the
same headings.
"""

from __future__ import annotations

import html as html_escape
from dataclasses import dataclass

from bs4 import BeautifulSoup, Tag
from mkdocs.structure.toc import get_toc

from handbook import translations
from handbook.execution.labs import CHECK, ROLES, SOLUTION, STARTER
from handbook.markdown_structure import heading_id, headings
from handbook.messages import Words, translatable

PYTORCH_SOURCE = "https://github.com/pytorch/pytorch/blob/"
# What a code cell of each role is labelled with on the page (the chapters label an output "Output").
LABELS = {STARTER: translatable("Complete this cell"), CHECK: translatable("Check")}


@dataclass(frozen=True)
class LabPage:
    content: str  # the article's HTML
    toc: object  # MkDocs' TableOfContents


def section_ids(prose: str) -> list[str]:
    """The ids of the lab's headings, in order, as a page's headings get them (a `{#id}` kept by a
    translation, else the slug), made unique as MkDocs' toc makes them."""
    taken: set[str] = set()
    ids = []
    for heading in headings(prose.splitlines()):
        ids.append(heading_id(heading.title, taken))
        taken.add(ids[-1])
    return ids


def fit(
    rendered: str,
    ids: list[str],
    words: Words,
    notebook_url: str,
    colab_url: str | None,
    notices: dict[str, tuple[str, str]] | None = None,
) -> LabPage:
    """mkdocs-jupyter's HTML of a lab (`rendered`) as the site shows it (the module's docstring). A
    translation's `notices`: section id (`top` for the title's) -> (the date its original changed, the
    original section's address), shown under the heading as a translated page shows them."""
    soup = BeautifulSoup(rendered, "html.parser")
    notebook = soup.select_one(".jp-Notebook")
    if notebook is None:
        raise ValueError("mkdocs-jupyter's HTML has no .jp-Notebook: its markup changed")
    parts: list[str] = []
    heading_ids = iter(ids)
    toc: list[dict] = []
    links = _notebook_links(words, notebook_url, colab_url)
    for cell in notebook.find_all("div", class_="jp-Cell", recursive=False):
        classes = cell.get("class", [])
        if "jp-MarkdownCell" in classes:
            parts.append(_text_cell(cell, heading_ids, toc, links if not toc else None, notices or {}, words))
        elif "jp-CodeCell" in classes:
            parts.append(_code_cell(cell, words))
    return LabPage("\n".join(parts), get_toc(toc))


def _text_cell(
    cell: Tag, ids, toc: list[dict], links: str | None, notices: dict[str, tuple[str, str]], words: Words
) -> str:
    """A text cell's HTML; `links` go under the page's title, if the cell holds it, and each outdated
    section's notice under its heading."""
    body = cell.select_one(".jp-RenderedMarkdown")
    if body is None:
        return ""
    for link in body.find_all("a", href=lambda href: href and href.startswith(PYTORCH_SOURCE)):
        link["class"] = "pytorch-source"  # styled, and named by the tests, as a chapter's source links
    for heading in body.find_all(["h1", "h2", "h3", "h4", "h5", "h6"]):
        for anchor in heading.select("a.anchor-link"):
            anchor.decompose()
        name = heading.get_text().strip()
        heading["id"] = identifier = next(ids)
        permalink = BeautifulSoup(
            f'<a class="headerlink" href="#{identifier}" title="Permanent link">&para;</a>', "html.parser"
        )
        heading.append(permalink)
        level = int(heading.name[1])
        section = translations.TOP if level == 1 else identifier
        if section in notices:
            heading.insert_after(BeautifulSoup(_notice(words, *notices[section]), "html.parser"))
        token = {"level": level, "id": identifier, "name": html_escape.escape(name), "children": []}
        if level == 1 and links is not None:
            heading.insert_after(BeautifulSoup(links, "html.parser"))
            links = None
        if level == 1 or not toc:
            toc.append(token)
        elif level == 2:
            toc[-1]["children"].append(token)
    return body.decode_contents().strip()


def _code_cell(cell: Tag, words: Words) -> str:
    role = next((c.removeprefix("celltag_") for c in cell.get("class", []) if c.startswith("celltag_")), "")
    if role not in ROLES:
        raise ValueError(f"a code cell of a lab's page without a role (its classes: {cell.get('class')})")
    listing = cell.select_one(".highlight-ipynb pre")
    named = LABELS.get(role)
    label = f'<span class="filename">{html_escape.escape(words(named))}</span>' if named else ""
    code = listing.decode_contents() if listing is not None else ""
    if not code.startswith("<span></span>"):
        code = "<span></span>" + code
    parts = [f'<div class="highlight handbook-lab-{role}">{label}<pre>{_code(code)}</pre></div>']
    for output in cell.select(".jp-OutputArea-output"):
        text = output.find("pre")
        if output.get("data-mime-type") != "text/plain" or text is None:
            raise ValueError(f"a lab's output that is not text: {output.get('data-mime-type')}")
        parts.append(
            '<div class="handbook-output highlight" data-search-exclude="">'
            f'<span class="filename">{html_escape.escape(words("Output"))}</span>'
            f"<pre><span></span><code>{html_escape.escape(text.get_text())}</code></pre></div>"
        )
    shown = "\n".join(parts)
    if role == SOLUTION:
        summary = html_escape.escape(words("Solution (try the exercise first)"))
        return f'<details class="handbook-solution">\n<summary>{summary}</summary>\n{shown}\n</details>'
    return shown


def _code(highlighted: str) -> str:
    """A listing's Pygments spans inside `<code>`, as the chapters' listings have them (after the empty
    span Pygments starts with)."""
    return "<span></span><code>" + highlighted.removeprefix("<span></span>") + "</code>"


def _notice(words: Words, date: str, url: str) -> str:
    """The notice of a section whose original changed, as a translated page's (an admonition)."""
    title = html_escape.escape(words("This section's translation is outdated"))
    line = words(
        "The English original of this section changed on {date}; this translation has not caught up yet. "
        "[Read the English original]({url})",
        date=date,
        url=url,
    )
    text, _, link = line.partition("[")
    label, _, _ = link.partition("]")
    return (
        f'<div class="admonition warning"><p class="admonition-title">{title}</p>'
        f'<p>{html_escape.escape(text)}<a href="{html_escape.escape(url)}">{html_escape.escape(label)}</a></p></div>'
    )


def _notebook_links(words: Words, notebook_url: str, colab_url: str | None) -> str:
    download = html_escape.escape(words("Download notebook"))
    links = [f'<a class="handbook-notebook" href="{html_escape.escape(notebook_url)}" download>{download}</a>']
    if colab_url:
        colab = html_escape.escape(words("Open in Colab"))
        links.append(f'<a class="handbook-colab" href="{html_escape.escape(colab_url)}">{colab}</a>')
    return '<p class="handbook-notebook-links">' + " · ".join(links) + "</p>"
