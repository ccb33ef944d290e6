"""The prose guard: a number typed in prose that another release prints and this one does not.

Prose is shared by every edition; a value a block prints belongs in a quote
(`handbook.prose.quotes`) or in versioned prose. For each supported release (and each
Python recorded apart for it), every number in a page's prose as that edition shows it
(versioned prose applied, quotes and fences left out) is looked up in the page's
recordings: a number that the page's blocks print under another release but not
under this one is almost certainly a value typed by hand from that other release.
Reads recordings only: no execution.
"""

from __future__ import annotations

import re
from pathlib import Path

from handbook import versioned_prose
from handbook.environment import RECORDED_PYTHON
from handbook.execution.recordings import Recordings
from handbook.markdown_structure import prose_lines
from handbook.prose.quotes import QUOTE
from handbook.tree_files import DOCS_DIR

# 7708, 2.13.0, 4,000,768 (thousands separators are dropped before comparing). A number is bounded by
# ASCII word characters only: Chinese prose writes one between ideographs, which `\w` would count as word
# characters ("共3000个"); full-width digits ("３０００") are read as the ASCII ones they stand for.
NUMBER = re.compile(r"(?<![A-Za-z0-9_.])[0-9]+(?:[.,][0-9]+)*(?![A-Za-z0-9_])")
THOUSANDS = re.compile(r"(?<=\d),(?=\d{3}(?!\d))")
FULL_WIDTH_DIGITS = str.maketrans("０１２３４５６７８９", "0123456789")
LINK_TARGET = re.compile(r"\]\([^)]*\)")
COMMENT = re.compile(r"<!--.*?-->")


def numbers(text: str) -> set[str]:
    ascii_digits = text.translate(FULL_WIDTH_DIGITS)
    return {token.rstrip(".,") for token in NUMBER.findall(THOUSANDS.sub("", ascii_digits))}


def printed_numbers(recordings: Recordings, page: str) -> set[str]:
    return {number for output in recordings.page_outputs(page) for number in numbers(output)}


def prose_numbers(markdown: str) -> list[tuple[int, str]]:
    """(line, number) for each number in the prose of already-versioned Markdown."""
    lines = markdown.splitlines()
    found = []
    for number, (line, prose) in enumerate(zip(lines, prose_lines(lines), strict=True), 1):
        if prose:
            text = COMMENT.sub("", LINK_TARGET.sub("]", QUOTE.sub("", line)))
            found += [(number, value) for value in sorted(numbers(text))]
    return found


def contradictions(root: Path, page: str, markdown: str, releases: list[str], docs_dir: str = DOCS_DIR) -> list[str]:
    """One message per number in `page`'s prose that contradicts an edition's own outputs.

    An edition is a release as one Python prints it: the recording Python's, and each
    Python with an overlay for that release."""
    shared = [Recordings(root, release) for release in releases]
    editions = [base.with_python(python) for base in shared for python in [RECORDED_PYTHON, *base.pythons()]]
    printed = {(e.release, e.python): printed_numbers(e, page) for e in editions}
    problems = []
    for edition in editions:
        own = (edition.release, edition.python)
        # Versioned prose keeps its line count for no release, so lines are counted in the source.
        shown = versioned_prose.render_keeping_lines(markdown, edition.release, edition.python)
        for line, value in prose_numbers(shown):
            if value in printed[own]:
                continue
            others = [_name(*other) for other in printed if other != own and value in printed[other]]
            if others:
                problems.append(
                    f"{docs_dir}/{page}:{line}: the prose says {value}, which this page prints with "
                    f"{', '.join(others)} but not with {_name(*own)}; quote it from the output "
                    "(<!-- out BLOCK /PATTERN/ -->) or version the sentence"
                )
    return problems


def _name(release: str, python: str) -> str:
    return f"torch {release}" + ("" if python == RECORDED_PYTHON else f" on Python {python}")
