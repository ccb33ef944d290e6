"""Each chapter as a Jupyter notebook, per edition, rendered on the site by mkdocs-jupyter.

A notebook is made from the same sources as its page, as this edition shows them:
versioned prose applied, quoted values resolved, source links at the edition's tag
(plain Markdown links: notebooks know no attribute lists), and each executed block
as a code cell carrying the output this edition shows. It opens with a pinned
install of the edition's torch and a check that the running torch is that one.
mkdocs-jupyter renders it (`execute: false`: nothing runs twice) as a page under
`notebooks/`, with its download button.
"""

from __future__ import annotations

import functools
import hashlib
import re
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

import nbformat
import tinycss2
from bs4 import BeautifulSoup, Tag
from bs4.element import Stylesheet
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook, new_output

from handbook.environment import minor_version, release_of
from handbook.execution.blocks import Page
from handbook.execution.page_state import PAGE_STATE
from handbook.markdown_structure import fences, title_heading
from handbook.tree_files import write_if_changed

DIRECTORY = "notebooks"
INSTALL_TAG = "install"  # the cell a test run of the notebook leaves out
CPU_INDEX = "https://download.pytorch.org/whl/cpu"
COLAB = "https://colab.research.google.com/github"
GPU_CELL_NOTE = "# GPU-only: needs CUDA. On Colab, choose a GPU runtime (Runtime > Change runtime type)."


def notebook_path(page: str) -> str:
    """`tensors.md` -> `notebooks/tensors.ipynb`, the notebook's path among the site's files."""
    return f"{DIRECTORY}/" + page.removesuffix(".md").replace("/", "-") + ".ipynb"


def is_notebook_page(src_uri: str) -> bool:
    return src_uri.startswith(f"{DIRECTORY}/") and src_uri.endswith(".ipynb")


def install_command(torch_version: str) -> str:
    """The pip command that installs the very build the outputs were recorded with."""
    command = f"pip install torch=={release_of(torch_version)}"
    return command + f" --index-url {CPU_INDEX}" if torch_version.endswith("+cpu") else command


def _install_cells(torch_version: str) -> list:
    release = release_of(torch_version)
    install = new_code_cell(
        f"# The outputs below were recorded with torch {torch_version}. Install it, then restart the kernel.\n"
        f"%pip install --quiet {install_command(torch_version).removeprefix('pip install ')}"
    )
    install.metadata["tags"] = [INSTALL_TAG]
    check = new_code_cell(
        "import torch\n\n"
        f'if torch.__version__.split("+")[0] != "{release}":\n'
        "    raise RuntimeError(\n"
        f'        f"This notebook was recorded with torch {torch_version}, but torch {{torch.__version__}} is '
        'running: "\n'
        '        "run the install cell above, restart the kernel, and run the notebook again."\n'
        "    )\n"
        f'print("torch", torch.__version__, "(recorded with {torch_version})")'
    )
    return [install, check]


def chapter_notebook(
    markdown: str, page: Page, outputs: dict[str, str], torch_version: str, prose: Callable[[str], str]
) -> nbformat.NotebookNode:
    """`markdown` is the page as this edition shows it, line for line (blocks are found by line);
    `outputs` maps block id to its output; `prose` rewrites text cells (source links, say)."""
    lines = markdown.splitlines()
    closing = {fence.first: fence.last for fence in fences(lines)}
    cells = [*_install_cells(torch_version), new_code_cell(PAGE_STATE)]
    start = 0
    for block in page.blocks:
        first = block.page_line - 1
        text = "\n".join(lines[start:first]).strip()
        if text:
            cells.append(new_markdown_cell(prose(text)))
        cell = new_code_cell(block.code if block.device != "cuda" else f"{GPU_CELL_NOTE}\n{block.code}")
        if outputs.get(block.id):
            cell.outputs = [new_output("stream", name="stdout", text=outputs[block.id] + "\n")]
        cells.append(cell)
        start = closing[first] + 1
    tail = "\n".join(lines[start:]).strip()
    if tail:
        cells.append(new_markdown_cell(prose(tail)))
    for number, cell in enumerate(cells):
        cell.id = f"cell-{number}"  # not nbformat's random ids: the same page makes the same notebook
    notebook = new_notebook(cells=cells)
    notebook.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    notebook.metadata["handbook"] = {"page": page.path, "torch": torch_version}
    return notebook


def write(notebook: nbformat.NotebookNode, path: Path) -> None:
    write_if_changed(path, nbformat.writes(notebook) + "\n")  # as nbformat.write ends the file


def colab_url(repo_url: str | None, torch_version: str, page: str) -> str | None:
    """Colab's address for this edition's notebook as published: mike puts each edition's site
    under `<minor version>/` on the `gh-pages` branch of `repo_url`; mkdocs-jupyter copies the
    notebook next to its page. None when the site is not published from GitHub."""
    match = re.fullmatch(r"https://github\.com/([^/]+)/([^/]+?)/?", repo_url or "")
    if not match:
        return None
    stem = notebook_path(page).removeprefix(f"{DIRECTORY}/").removesuffix(".ipynb")
    return f"{COLAB}/{match[1]}/{match[2]}/blob/gh-pages/{minor_version(torch_version)}/{DIRECTORY}/{stem}/{stem}.ipynb"


# nbconvert's page template loads MathJax and Mermaid from a CDN on every page; the
# handbook's notebooks have neither maths nor diagrams, and no request may leave the site.
CDN_LOADERS = ("mathjax", "mermaid")

T = TypeVar("T")


def digest_memo(size: int) -> Callable[[Callable[[str], T]], Callable[[str], T]]:
    """`derive(text)` remembered for the last `size` texts, by their SHA-256: a text seen again
    (JupyterLab's stylesheet on every notebook page, a page `mkdocs serve` rebuilds unchanged)
    is not derived again. `cache_clear()` forgets them all."""

    def decorate(derive: Callable[[str], T]) -> Callable[[str], T]:
        values: OrderedDict[bytes, T] = OrderedDict()

        @functools.wraps(derive)
        def remembered(text: str) -> T:
            key = hashlib.sha256(text.encode("utf-8", "surrogatepass")).digest()
            if key in values:
                values.move_to_end(key)
                return values[key]
            values[key] = value = derive(text)
            if len(values) > size:
                values.popitem(last=False)
            return value

        remembered.cache_clear = values.clear  # type: ignore[attr-defined]
        return remembered

    return decorate


@dataclass(frozen=True)
class NotebookPage:
    """A notebook page as the site serves it, and the addresses outside the site it would load."""

    html: str
    outside: tuple[str, ...]


@digest_memo(size=32)
def notebook_page(html: str) -> NotebookPage:
    """`notebook_page_html` and its `external_resources`, derived once per distinct page."""
    soup = _page_soup(html)
    return NotebookPage(str(soup), tuple(_loaded_from_outside(soup)))


def notebook_page_html(html: str) -> str:
    """mkdocs-jupyter's page, made to keep the site's promises: no CDN loaders, and of the
    JupyterLab stylesheet it inlines (575 kB, with 3,000 rules) only the rules this page uses."""
    return str(_page_soup(html))


def _page_soup(html: str) -> BeautifulSoup:
    soup = BeautifulSoup(html, "html.parser")
    for script in _tags(soup, "script"):
        source = (script.get("src") or "") + (script.get("type") or "") + script.get_text()
        if any(name in source.lower() for name in CDN_LOADERS):
            script.decompose()
    tags = _tags(soup)
    used = {name for tag in tags for name in tag.get("class") or ()}
    styles = [tag for tag in tags if tag.name == "style"]
    sheets = [used_rules(_entries(style.get_text()), used) for style in styles]
    referenced = used_variables(sheets, [tag["style"] for tag in tags if tag.get("style") is not None])
    for style, sheet in zip(styles, sheets, strict=True):
        # A Stylesheet, as the parser makes a <style>'s text: `get_text()` reads no other kind there.
        style.string = Stylesheet(_serialised(sheet, keep=referenced))
    return soup


def _tags(soup: BeautifulSoup, *names: str) -> list[Tag]:
    """The page's elements (those named, if any) in document order, as `find_all` finds them,
    in one walk over the page rather than one per query."""
    tags = (node for node in soup.descendants if isinstance(node, Tag))
    return [tag for tag in tags if tag.name in names] if names else list(tags)


# A stylesheet is read once per process, into a tuple of entries, one per top-level rule: a
# qualified rule with its selectors and declarations (`_Rule`), a grouping at-rule with its
# nested entries (`_Grouping`), or any other at-rule's text, which is kept whole. Pruning a
# page's sheet is then two filters over its entries (the rules its classes can match, then the
# custom properties they use), with no second parse: the very text that parsing the pruned
# sheet again gave.
VARIABLE_USE = re.compile(r"var\(\s*(--[\w-]+)")
GROUPING_RULES = {"media", "supports"}  # at-rules whose nested rules are filtered too


@dataclass(frozen=True)
class _Grouping:
    keyword: str
    prelude: str  # serialised
    entries: tuple


@dataclass(frozen=True)
class _Declaration:
    name: str
    value: str  # serialised, stripped
    important: bool
    variables: frozenset[str]  # the custom properties its value uses


@dataclass(frozen=True)
class _Rule:
    selectors: tuple[tuple[str, frozenset[str]], ...]  # each selector, with the classes it requires
    declarations: tuple[_Declaration, ...]


def _read(css: str) -> tuple:
    """The stylesheet's entries."""
    entries: list = []
    for rule in tinycss2.parse_stylesheet(css, skip_comments=True, skip_whitespace=True):
        if rule.type == "qualified-rule":
            entries.append(_rule(rule))
        elif rule.type == "at-rule" and rule.at_keyword in GROUPING_RULES and rule.content is not None:
            inner = _read(tinycss2.serialize(rule.content))
            entries.append(_Grouping(rule.at_keyword, tinycss2.serialize(rule.prelude), inner))
        elif rule.type == "at-rule":
            entries.append(tinycss2.serialize([rule]))
    return tuple(entries)


def _rule(rule) -> _Rule:
    # Code cells take the site's own code colours (handbook.css), not nbconvert's Pygments style.
    selectors = [s for s in _selectors(rule.prelude) if ".highlight-ipynb " not in s + " "]
    declarations = tinycss2.parse_declaration_list(rule.content, skip_comments=True, skip_whitespace=True)
    return _Rule(
        tuple((s, _required_classes(s)) for s in selectors),
        tuple(_declaration(d) for d in declarations if d.type == "declaration"),
    )


def _declaration(declaration) -> _Declaration:
    value = tinycss2.serialize(declaration.value)
    variables = frozenset(VARIABLE_USE.findall(value))
    return _Declaration(declaration.name, value.strip(), declaration.important, variables)


@digest_memo(size=16)
def _entries(css: str) -> tuple:
    return _read(css)


def _declarations(entries: tuple):
    """Every rule's declarations, grouping at-rules' nested ones included."""
    for entry in entries:
        if isinstance(entry, _Rule):
            yield from entry.declarations
        elif isinstance(entry, _Grouping):
            yield from _declarations(entry.entries)


def used_variables(sheets: list[tuple], inline_styles: list[str]) -> set[str]:
    """Custom properties that something uses: a property's value in a sheet's entries, an inline
    style, or a custom property that is itself used (to a fixed point)."""
    uses: dict[str, set[str]] = {}
    used = {name for style in inline_styles for name in VARIABLE_USE.findall(style)}
    for declaration in (d for sheet in sheets for d in _declarations(sheet)):
        if declaration.name.startswith("--"):
            uses.setdefault(declaration.name, set()).update(declaration.variables)
        else:
            used |= declaration.variables
    pending = list(used)
    while pending:
        for name in uses.get(pending.pop(), ()):
            if name not in used:
                used.add(name)
                pending.append(name)
    return used


def _serialised(entries: tuple, keep: set[str]) -> str:
    """The entries as a stylesheet, without the declarations of custom properties not in `keep`
    (JupyterLab defines hundreds, many holding whole SVG icons, for the application's own interface)."""
    kept = []
    for entry in entries:
        if isinstance(entry, _Rule):
            text = "; ".join(
                f"{d.name}: {d.value}" + (" !important" if d.important else "")
                for d in entry.declarations
                if not d.name.startswith("--") or d.name in keep
            )
            if text:
                kept.append(", ".join(selector for selector, _ in entry.selectors) + " {" + text + "}")
        elif isinstance(entry, _Grouping):
            inner = _serialised(entry.entries, keep)
            if inner.strip():
                kept.append(f"@{entry.keyword}{entry.prelude}{{{inner}}}")
        else:
            kept.append(entry)
    return "\n".join(kept)  # parse errors (the stylesheet has a few) are dropped, as browsers drop them


def _selectors(prelude: list) -> list[str]:
    """A rule's selector list, split at its top-level commas (`:is(.a, .b)` stays whole)."""
    selectors, current = [], []
    for token in prelude:
        if token.type == "literal" and token.value == ",":
            selectors.append(tinycss2.serialize(current).strip())
            current = []
        else:
            current.append(token)
    return [*selectors, tinycss2.serialize(current).strip()]


CLASS_NAME = re.compile(r"\.(-?[_a-zA-Z][\w-]*)")
FUNCTIONAL_PSEUDO = re.compile(r"\([^()]*\)")


def _required_classes(selector: str) -> frozenset[str]:
    """Classes an element must carry for the selector to match: not those inside `:not()`,
    `:is()` and the like, which may match without them."""
    while FUNCTIONAL_PSEUDO.search(selector):
        selector = FUNCTIONAL_PSEUDO.sub("", selector)
    return frozenset(CLASS_NAME.findall(selector))


def used_rules(entries: tuple, used_classes: set[str]) -> tuple:
    """The entries without the rules none of whose selectors can match (a selector naming a class
    that no element of the page carries), each rule kept with the selectors that can. At-rules are
    kept, their nested rules filtered."""
    kept = []
    for entry in entries:
        if isinstance(entry, _Rule):
            matching = tuple((selector, required) for selector, required in entry.selectors if required <= used_classes)
            if matching:
                kept.append(_Rule(matching, entry.declarations))
        elif isinstance(entry, _Grouping):
            inner = used_rules(entry.entries, used_classes)
            if inner:
                kept.append(_Grouping(entry.keyword, entry.prelude, inner))
        else:
            kept.append(entry)
    return tuple(kept)


def external_resources(html: str) -> list[str]:
    """Addresses outside the site that the HTML would load (links to follow do not count)."""
    return _loaded_from_outside(BeautifulSoup(html, "html.parser"))


def _loaded_from_outside(soup: BeautifulSoup) -> list[str]:
    tags = _tags(soup)
    loaded = [tag.get("src") for tag in tags if tag.name in {"script", "img", "iframe", "audio", "video", "source"}]
    loaded += [tag.get("href") for tag in tags if tag.name == "link"]
    loaded += re.findall(
        r"""import\s[^'"]*['"](https?://[^'"]+)""", " ".join(t.get_text() for t in tags if t.name == "script")
    )
    loaded += re.findall(
        r"""url\(\s*['"]?(https?://[^'")]+)""", " ".join(t.get_text() for t in tags if t.name == "style")
    )
    return sorted({url for url in loaded if url and re.match(r"(https?:)?//", url)})


def with_notebook_links(markdown: str, notebook_url: str, colab: str | None) -> str:
    """Under the page's title: the chapter as a notebook page, its download, and Colab."""
    stem = notebook_url.rstrip("/").rsplit("/", 1)[-1]
    links = [
        f'<a href="{notebook_url}">Read this chapter as a notebook</a>',
        f'<a class="handbook-notebook" href="{notebook_url}{stem}.ipynb" download>Download it</a>',
    ]
    if colab:
        links.append(f'<a class="handbook-colab" href="{colab}">Open in Colab</a>')
    # Raw HTML: the notebook file is copied by mkdocs-jupyter, so mkdocs must not validate the link.
    block = '<p class="handbook-notebook-links">' + " · ".join(links) + "</p>"
    lines = markdown.splitlines()
    title = title_heading(lines)
    if title is None:
        return block + "\n\n" + markdown
    lines.insert(title.line + 1, "\n" + block + "\n")
    return "\n".join(lines) + "\n"
