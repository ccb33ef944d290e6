"""Each chapter as a Jupyter notebook, per edition: a file of the site, offered on its chapter.

A notebook is made from the same sources as its page, as this edition shows them:
versioned prose applied, quoted values resolved, source links at the edition's tag
(plain Markdown links: notebooks know no attribute lists), links to the handbook's
pages made to work where the notebook is opened (the published chapter pages), and
each executed block as a code cell carrying the output this edition shows. It opens
with a pinned install of the edition's torch and a check that the running torch is
that one. The site publishes it as `notebooks/<chapter>.ipynb`; its chapter page offers
it under the title, with Colab (CONTRIBUTING.md, "Notebooks"). No page renders it (a lab's page
renders the lab's own notebook: `handbook.labs`).
"""

from __future__ import annotations

import ast
import html
import posixpath
import re
from collections.abc import Callable
from pathlib import Path

import nbformat
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook, new_output

from handbook.environment import minor_version, release_of
from handbook.execution.blocks import Page
from handbook.execution.page_state import PAGE_STATE
from handbook.languages import DEFAULT
from handbook.markdown_structure import fences, prose_lines, title_heading
from handbook.messages import Words, translatable
from handbook.tree_files import write_if_changed

DIRECTORY = "notebooks"
INSTALL_TAG = "install"  # the cell a test run of the notebook leaves out
CPU_INDEX = "https://download.pytorch.org/whl/cpu"
COLAB = "https://colab.research.google.com/github"
GPU_CELL_NOTE = translatable("# GPU-only: needs CUDA. On Colab, choose a GPU runtime (Runtime > Change runtime type).")


def value_not_shown(code: str) -> str:
    """`code` with `;` after its last statement where that is an expression other than a `print`: Jupyter
    and Colab show the value of such a statement, and the page, which shows what a block printed, does
    not. The `;` keeps the notebook showing what the page shows."""
    try:
        body = ast.parse(code).body
    except SyntaxError:
        return code
    last = body[-1] if body else None
    if not isinstance(last, ast.Expr) or _is_print(last.value):
        return code
    lines = code.split("\n")
    line = lines[last.end_lineno - 1].encode()  # ast's offsets count UTF-8 bytes
    before, after = line[: last.end_col_offset].decode(), line[last.end_col_offset :].decode()
    if after.lstrip().startswith(";"):
        return code
    lines[last.end_lineno - 1] = f"{before};{after}"
    return "\n".join(lines)


def _is_print(node: ast.expr) -> bool:
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "print"


def notebook_path(page: str) -> str:
    """`tensors.md` -> `notebooks/tensors.ipynb`, the notebook's path among the site's files."""
    return f"{DIRECTORY}/" + page.removesuffix(".md").replace("/", "-") + ".ipynb"


def install_command(torch_version: str) -> str:
    """The pip command that installs the very build the outputs were recorded with."""
    command = f"pip install torch=={release_of(torch_version)}"
    return command + f" --index-url {CPU_INDEX}" if torch_version.endswith("+cpu") else command


def _install_cells(torch_version: str, words: Words) -> list:
    """The notebook's first cells: the pinned install (its comment in the site's language), and the
    check that the running torch is the one recorded (code, whose message stays in English)."""
    release = release_of(torch_version)
    comment = words(
        "# The outputs below were recorded with torch {torch}. Install it, then restart the kernel.",
        torch=torch_version,
    )
    install = new_code_cell(
        f"{comment}\n%pip install --quiet {install_command(torch_version).removeprefix('pip install ')}"
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
    markdown: str,
    page: Page,
    outputs: dict[str, str],
    torch_version: str,
    prose: Callable[[str], str],
    figures: dict[str, str] | None = None,
    language: str = DEFAULT,
) -> nbformat.NotebookNode:
    """`markdown` is the page as this edition shows it, line for line (blocks are found by line);
    `outputs` maps block id to its output, `figures` to its figure's SVG; `prose` rewrites text
    cells (source links, say). The comments the build adds to code are in the site's `language`."""
    figures = figures or {}
    words = Words(language)
    lines = markdown.splitlines()
    closing = {fence.first: fence.last for fence in fences(lines)}
    cells = [*_install_cells(torch_version, words), new_code_cell(PAGE_STATE)]
    start = 0
    for block in page.blocks:
        first = block.page_line - 1
        text = "\n".join(lines[start:first]).strip()
        if text:
            cells.append(new_markdown_cell(prose(text)))
        code = value_not_shown(block.code)
        cell = new_code_cell(code if block.device != "cuda" else f"{words(GPU_CELL_NOTE)}\n{code}")
        if outputs.get(block.id):
            cell.outputs = [new_output("stream", name="stdout", text=outputs[block.id] + "\n")]
        if figures.get(block.id):  # shown as Jupyter shows a figure; its alt text for readers who cannot see it
            data = {"image/svg+xml": figures[block.id], "text/plain": block.alt}
            cell.outputs.append(new_output("display_data", data=data))
            # The code that draws it folded, as on the page: JupyterLab and Notebook 7 read `jupyter`,
            # Colab `cellView`; the cell still runs.
            cell.metadata.update({"jupyter": {"source_hidden": True}, "cellView": "form"})
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


def colab_url(repo_url: str | None, torch_version: str, page: str, prefix: str = "") -> str | None:
    """Colab's address for this edition's notebook as published: mike puts each edition's site
    under `<minor version>/` on the `gh-pages` branch of `repo_url`, and the site has the
    notebook at `notebook_path`; a translation's under its language's `prefix` (`zh/`). None when the
    site is not published from GitHub."""
    match = re.fullmatch(r"https://github\.com/([^/]+)/([^/]+?)/?", repo_url or "")
    if not match:
        return None
    return f"{COLAB}/{match[1]}/{match[2]}/blob/gh-pages/{prefix}{minor_version(torch_version)}/{notebook_path(page)}"


def link_base(site_url: str | None, torch_version: str, serving: bool = False) -> str:
    """What a notebook's links to the handbook's pages start with: the published site of this
    edition (`site_url` and mike's `<minor version>/`), or under `mkdocs serve` the served site
    (no version directory). Without a `site_url`, the site's root relative to the notebook's
    place in it (`notebooks/`), which works where the site's own files are opened."""
    if not site_url:
        return "../" * notebook_path("x.md").count("/")
    base = site_url if site_url.endswith("/") else site_url + "/"
    return base if serving else f"{base}{minor_version(torch_version)}/"


def page_url(page: str) -> str:
    """A page's address under the site's root, as MkDocs gives it with directory URLs:
    `tensors.md` -> `tensors/`, `index.md` -> ``, `a/index.md` -> `a/`; a lab's page (mkdocs-jupyter
    renders `labs/tensors.ipynb`) -> `labs/tensors/`."""
    stem = page.removesuffix(".md").removesuffix(".ipynb")
    if stem == "index" or stem.endswith("/index"):
        return stem.removesuffix("index")
    return stem + "/"


# An inline link or image target, and a reference definition: `](target "title")`, `[ref]: target`.
INLINE_TARGET = re.compile(r"(?P<open>\]\(\s*)(?P<target><[^>\n]*>|[^()\s]+)")
DEFINITION = re.compile(r"^(?P<open> {0,3}\[[^\]]+\]:\s*)(?P<target><[^>]*>|\S+)")
CODE_SPAN = re.compile(r"(`+).+?\1")
SCHEME = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*:")


def site_link(target: str, page: str, base: str) -> str:
    """A link of `page`'s prose as the notebook needs it: a page of the handbook (`tensors.md#x`,
    `../what-changed.md`), another file of it, or an anchor of this page (`#x`: the chapter page's
    heading ids, which the notebook's own headings do not share) becomes `base` + its address on the
    site. Links elsewhere (`https:`, `mailto:`) and site-absolute paths are kept."""
    bracketed = target.startswith("<") and target.endswith(">")
    bare = target[1:-1] if bracketed else target
    if not bare or SCHEME.match(bare) or bare.startswith("/"):
        return target
    path, hash_mark, fragment = bare.partition("#")
    if path:
        resolved = posixpath.normpath(posixpath.join(posixpath.dirname(page), path))
        if resolved.startswith("../"):
            return target  # outside the docs: nothing of the site to point at
        address = page_url(resolved) if resolved.endswith((".md", ".ipynb")) else resolved
    else:
        address = page_url(page)
    link = base + address + hash_mark + fragment
    return f"<{link}>" if bracketed else link


def with_site_links(markdown: str, page: str, base: str) -> str:
    """Every link of the prose (not of code: fences and code spans are kept) through `site_link`."""
    lines = markdown.splitlines()
    prose = prose_lines(lines)

    def rewrite(match: re.Match) -> str:
        return match["open"] + site_link(match["target"], page, base)

    def outside_code(line: str) -> str:
        parts, last = [], 0
        for span in CODE_SPAN.finditer(line):
            parts += [INLINE_TARGET.sub(rewrite, line[last : span.start()]), span[0]]
            last = span.end()
        return "".join([*parts, INLINE_TARGET.sub(rewrite, line[last:])])

    shown = [
        DEFINITION.sub(rewrite, outside_code(line)) if is_prose else line
        for line, is_prose in zip(lines, prose, strict=True)
    ]
    return "\n".join(shown) + ("\n" if markdown.endswith("\n") else "")


def with_notebook_links(markdown: str, notebook_url: str, colab: str | None, language: str = DEFAULT) -> str:
    """Under the page's title: the chapter's notebook to download, and to open in Colab, in the
    site's `language`. `notebook_url` is the notebook file's address relative to the page."""
    words = Words(language)
    download = html.escape(words("Download notebook"))
    links = [f'<a class="handbook-notebook" href="{html.escape(notebook_url)}" download>{download}</a>']
    if colab:
        links.append(f'<a class="handbook-colab" href="{html.escape(colab)}">{html.escape(words("Open in Colab"))}</a>')
    # Raw HTML, for the `download` attribute; the file is one of MkDocs' Files (the plugin adds it),
    # and the link crawler of the built site (tests/site/test_built_site_links.py) checks the address.
    block = '<p class="handbook-notebook-links">' + " · ".join(links) + "</p>"
    lines = markdown.splitlines()
    title = title_heading(lines)
    if title is None:
        return block + "\n\n" + markdown
    lines.insert(title.line + 1, "\n" + block + "\n")
    return "\n".join(lines) + "\n"
