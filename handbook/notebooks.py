"""A chapter as a Jupyter notebook: its prose, its code, and its recorded outputs.

Made from the same sources as the page: the text between executed fences becomes
markdown cells, each executed block a code cell carrying its recorded output. A
first cell reproduces the state every page process starts from.
"""

from __future__ import annotations

from collections.abc import Callable

import nbformat
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook, new_output

from handbook.blocks import Page
from handbook.fences import fences

PAGE_STATE = """\
# Every page of the handbook runs in a fresh process in this state.
import torch

torch.set_num_threads(1)
torch.manual_seed(0)"""


def _fence_spans(markdown: str, page: Page) -> list[tuple[int, int]]:
    """(first, last) 0-based line indices of each executed fence, in page order."""
    starts = {fence.first: fence.last for fence in fences(markdown.splitlines())}
    return [(block.page_line - 1, starts[block.page_line - 1]) for block in page.blocks]


def page_notebook(markdown: str, page: Page, outputs: dict[str, str], prose: Callable[[str], str] = lambda text: text) -> nbformat.NotebookNode:
    """`outputs` maps block id to its recorded output; `prose` rewrites text cells (links, say)."""
    lines = markdown.splitlines()
    cells = [new_code_cell(PAGE_STATE)]
    start = 0
    for block, (first, last) in zip(page.blocks, _fence_spans(markdown, page)):
        text = "\n".join(lines[start:first]).strip()
        if text:
            cells.append(new_markdown_cell(prose(text)))
        cell = new_code_cell(block.code if block.device != "cuda" else "# GPU-only: needs CUDA\n" + block.code)
        if outputs.get(block.id):
            cell.outputs = [new_output("stream", name="stdout", text=outputs[block.id] + "\n")]
        cells.append(cell)
        start = last + 1
    tail = "\n".join(lines[start:]).strip()
    if tail:
        cells.append(new_markdown_cell(prose(tail)))
    notebook = new_notebook(cells=cells)
    notebook.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    return notebook


def write(notebook: nbformat.NotebookNode, path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(notebook, str(path))
