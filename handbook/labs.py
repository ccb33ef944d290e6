"""Labs as the site shows them: each lab's two notebooks, and its translation's checks and marks.

The engine runs a lab (`handbook.execution.labs`); here each edition's lab becomes two
notebooks, with the outputs that edition recorded:

- the page's (`labs/<name>.ipynb`), which mkdocs-jupyter renders as the lab's page, and
  which the plugin then fits to the site (`handbook.lab_pages`): links relative to the
  page, no install cells;
- the reader's (`notebooks/labs-<name>.ipynb`), offered on the page as "Download notebook"
  and "Open in Colab": the pinned install and the page state first, links to the published
  chapters, and each solution hidden (`jupyter.source_hidden` for JupyterLab, `cellView:
  form` for Colab).

Neither holds a mistake cell: mistakes exist to test the checks, in the build.

A lab's prose is its text cells, read line for line in place of the file (`prose`): the
translation marks, outdated sections and source links of the chapters work on it as on a
page. A translated lab (`labs-zh/<name>.py`) has the same code cells as its original, byte
for byte, and translated text cells, each section carrying `# <!-- translates REVISION -->`.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import nbformat
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook, new_output

from handbook import languages, translations
from handbook.execution.labs import (
    CHECK,
    LABS_DIR,
    MISTAKE,
    SETUP,
    SOLUTION,
    STARTER,
    SUFFIX,
    Lab,
    LabError,
    lab_files,
    parse_lab,
)
from handbook.execution.page_state import PAGE_STATE
from handbook.markdown_structure import without_heading_ids
from handbook.messages import Words
from handbook.notebooks import DIRECTORY, _install_cells
from handbook.tree_files import read_text

PAGES = "labs"  # where a lab's page is among the site's files: labs/<name>.ipynb, shown at labs/<name>/
ROLE_TAG = {SETUP: SETUP, STARTER: STARTER, SOLUTION: SOLUTION, CHECK: CHECK}


def labs_dir(language: str) -> str:
    """Where a language's labs are: `labs/` for the original, `labs-zh/` for its Chinese translation."""
    (found,) = (entry.labs_dir for entry in languages.LANGUAGES if entry.code == language)
    return found


def page_path(lab: str) -> str:
    """`tensors.py` -> `labs/tensors.ipynb`: the lab's page among the site's files (mkdocs-jupyter's)."""
    return f"{PAGES}/{lab.removesuffix(SUFFIX)}.ipynb"


def notebook_path(lab: str) -> str:
    """`tensors.py` -> `notebooks/labs-tensors.ipynb`: the notebook a reader downloads."""
    return f"{DIRECTORY}/{PAGES}-{lab.removesuffix(SUFFIX)}.ipynb"


def lab_of_page(page: str) -> str | None:
    """`labs/tensors.ipynb` -> `tensors.py`; None for a page that is not a lab's."""
    if page.startswith(f"{PAGES}/") and page.endswith(".ipynb"):
        return page.removeprefix(f"{PAGES}/").removesuffix(".ipynb") + SUFFIX
    return None


def page_url(lab: str) -> str:
    """The lab page's address under the site's root: `labs/tensors/`."""
    return f"{PAGES}/{lab.removesuffix(SUFFIX)}/"


def markdown_place(lab: str) -> str:
    """Where a lab's text is read from, as a page of the docs would be: links in it are written as from
    `labs/<name>.md` (`../tensors.md#views-and-copies` is the chapter)."""
    return f"{PAGES}/{lab.removesuffix(SUFFIX)}.md"


def prose(text: str, lab: Lab) -> str:
    """The lab's text cells as Markdown, each line where it is in the file (`text`), every other line
    blank: sections, marks and source links are read from it, and named by the file's lines."""
    lines = [""] * len(text.splitlines())
    for cell in lab.cells:
        if cell.kind == "markdown":
            for offset, line in enumerate(cell.source.splitlines()):
                lines[cell.line + offset] = line
    return "\n".join(lines) + "\n"


def prose_of_text(text: str, lab: str) -> str:
    """`prose` of a lab's file as `text` (an older revision, from git); empty where it is not a lab."""
    try:
        return prose(text, parse_lab(text, LABS_DIR, lab))
    except LabError:
        return ""


def lab_notebook(
    lab: Lab,
    outputs: dict[str, str],
    torch_version: str,
    text: Callable[[str], str],
    language: str = languages.DEFAULT,
    download: bool = False,
) -> nbformat.NotebookNode:
    """A lab as a notebook with this edition's `outputs` (block id -> output): the page's, or with
    `download` the reader's (see the module's docstring). `text` makes each text cell's Markdown."""
    words = Words(language)
    cells = [*_install_cells(torch_version, words), new_code_cell(PAGE_STATE)] if download else []
    setups = 0
    for cell in lab.cells:
        if cell.kind == "markdown":
            if shown := text(cell.source).strip():
                cells.append(new_markdown_cell(shown))
            continue
        if cell.role == MISTAKE:
            continue
        code = new_code_cell(cell.source)
        code.metadata["tags"] = [ROLE_TAG[cell.role]]
        if cell.role == SETUP:
            setups += 1
            block = f"setup-{setups}"
        else:
            block = {STARTER: "", SOLUTION: f"{cell.exercise}-solution", CHECK: f"{cell.exercise}-check"}[cell.role]
        if outputs.get(block):
            code.outputs = [new_output("stream", name="stdout", text=outputs[block] + "\n")]
        if cell.role == SOLUTION and download:
            code.metadata["jupyter"] = {"source_hidden": True}  # JupyterLab folds it
            code.metadata["cellView"] = "form"  # Colab shows "Show code" in its place
        cells.append(code)
    for number, cell in enumerate(cells):
        cell.id = f"cell-{number}"
    notebook = new_notebook(cells=cells)
    notebook.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    notebook.metadata["handbook"] = {"lab": lab.file, "torch": torch_version}
    return notebook


def text_cell(markdown: str, language: str) -> str:
    """A text cell as a notebook shows it: no translation marks, no `{#id}` after a heading (Jupyter
    and mkdocs-jupyter read no attribute lists), a translation's lines joined as on its pages."""
    plain = without_heading_ids(translations.without_marks(markdown))
    return languages.without_soft_breaks(plain, language)


# Translations ---------------------------------------------------------------------------------------------


def code_differences(original: Lab, translated: Lab) -> list[str]:
    """How a translated lab's code cells differ from its original's: each the same code and role, in order."""
    mine = [cell for cell in translated.cells if cell.kind == "code"]
    theirs = [cell for cell in original.cells if cell.kind == "code"]
    problems = [
        f"{translated.file}:{a.line}: code cell {n} is not {original.file}:{b.line}'s: a translated lab has its "
        "original's code cells, unchanged (role, exercise and code)"
        for n, (a, b) in enumerate(zip(mine, theirs, strict=False), 1)
        if (a.role, a.exercise, a.source, a.options) != (b.role, b.exercise, b.source, b.options)
    ]
    if len(mine) != len(theirs):
        problems.append(f"{translated.file}: {len(mine)} code cell(s), its original has {len(theirs)}")
    return problems


def outdated(root: Path, original_dir: str, translated_dir: str, lab_reader) -> list[translations.Outdated]:
    """Every section of the translated labs that does not translate its original as it is now; a lab
    with no translation is listed as its section `top`. Each is named by its page (`labs/<name>.ipynb`)."""
    found = []
    for lab in lab_files(root, original_dir):
        original_file, translated_file = f"{original_dir}/{lab}", f"{translated_dir}/{lab}"
        original = prose(read_text(root / original_file, original_file), lab_reader(root, original_dir, lab))
        if not (root / translated_file).is_file():
            found.append(translations.Outdated(page_path(lab), translations.TOP, None, translations.revision("")))
            continue
        translated = prose(read_text(root / translated_file, translated_file), lab_reader(root, translated_dir, lab))
        found += [
            translations.Outdated(page_path(lab), o.section, o.recorded, o.current)
            for o in translations.outdated_sections(lab, original, translated)
        ]
    return found


MARK_LINE = "# <!-- translates {revision} -->"


def marked(original_prose: str, translated_text: str, translated_prose: str) -> str:
    """The translated lab's file with each section's mark naming its original's current revision: the mark
    follows the section's heading line (the title's, for `top`); marks already there are replaced."""
    originals = translations.section_texts(original_prose)
    current = {section: translations.revision(text) for section, (_, text) in originals.items()}
    lines = translated_text.splitlines()
    positions = translations.section_texts(translated_prose)
    title = next((n for n, line in enumerate(translated_prose.splitlines()) if line.startswith("# ")), -1)
    inserts = {
        (title if section == translations.TOP else line): MARK_LINE.format(revision=current[section])
        for section, (line, _) in positions.items()
        if section in current
    }
    out = []
    for index, line in enumerate(lines):
        if translations.MARK.match(line.removeprefix("#").strip()):
            continue
        out.append(line)
        if index in inserts:
            out.append(inserts[index])
    return "\n".join(out) + ("\n" if translated_text.endswith("\n") else "")
