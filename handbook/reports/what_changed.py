"""The "What changed" page: the outputs and source anchors that differ between two torch releases.

Made from the committed recordings alone, so every edition of the site shows the
same comparisons. The page's prose is written by hand; a line of its own,
`<!-- what-changed 2.14.1 2.15.0 -->`, is replaced by the generated comparison:
changed blocks by chapter and section (headings a reader can follow), each with
the diff of its output, then the source anchors that moved. Each changed block's
entry has an anchor that the block's own page links to ("changed in torch 2.15").
"""

from __future__ import annotations

import re
from pathlib import Path

from handbook.environment import minor_version
from handbook.execution.blocks import Block, Page
from handbook.execution.measurements import masked
from handbook.execution.recordings import Recordings, unified_diff
from handbook.markdown_structure import fenced
from handbook.releases import previous_release

PAGE = "what-changed.md"
MARKER = re.compile(r"^<!-- what-changed (?P<old>\S+) (?P<new>\S+) -->$", re.MULTILINE)


def entry_anchor(new: str, block: Block) -> str:
    """The id of a block's entry in the comparison that ends at release `new`."""
    return f"changed-{minor_version(new)}-{block.page.removesuffix('.md').replace('/', '-')}-{block.id}"


def changed_blocks(root: Path, release: str, pages: list[Page]) -> dict[Block, str]:
    """Blocks whose recorded output differs from the previous supported release -> their entry's anchor."""
    previous = previous_release(root, release)
    if previous is None:
        return {}
    old, new = Recordings(root, previous), Recordings(root, release)
    return {
        block: entry_anchor(release, block)
        for page in pages
        for block in page.blocks
        if (new_output := new.read(block)) is not None
        and (old_output := old.read(block)) is not None
        and masked(new_output) != masked(old_output)
    }


def _block_entry(block: Block, old: str, new: str, before: str, after: str) -> list[str]:
    # Measured values differ from run to run: what changed is the text around them.
    diff = unified_diff(masked(before), masked(after), block.id, (f"torch {old}", f"torch {new}"))
    context = f"{block.page}#{block.anchor}"
    # attr_list gives the paragraph its id when the list is on the paragraph's last line, alone.
    return [
        f"[Block {block.index} in context]({context}), from `{block.origin}`:",
        f"{{: #{entry_anchor(new, block)} }}",
        "",
        # Kept out of the search index: the outputs are searchable on their own pages, and
        # every page loads the index, so the diff of every changed output would weigh on all.
        "<div markdown data-search-exclude>",
        "",
        fenced(diff.rstrip("\n"), "diff"),  # the outputs' own fences stay inside it
        "",
        "</div>",
        "",
    ]


def compare(root: Path, old: str, new: str, pages: list[Page], titles: dict[str, str]) -> str:
    """The generated comparison of two releases' recordings, as Markdown under a `##` heading."""
    before_recordings, after_recordings = Recordings(root, old), Recordings(root, new)
    if not before_recordings.exists or not after_recordings.exists:
        missing = old if not before_recordings.exists else new
        return f"!!! note\n    Nothing to compare yet: torch {missing} has no recordings.\n"
    before, after = before_recordings.outputs(), after_recordings.outputs()
    changed = {name for name in before.keys() & after.keys() if masked(before[name]) != masked(after[name])}
    only_old, only_new = before.keys() - after.keys(), after.keys() - before.keys()
    lines = [
        f"Of {len(before.keys() | after.keys())} recorded outputs, **{len(changed)} differ** between torch {old} "
        f"and torch {new}"
        + (f", {len(only_old)} exist only for {old}" if only_old else "")
        + (f", {len(only_new)} only for {new}" if only_new else "")
        + ".",
        "",
    ]
    for page in pages:  # in reading order
        blocks = [b for b in page.blocks if (page.path, after_recordings.path(b).name) in changed]
        if not blocks:
            continue
        lines += [f"### {titles.get(page.path, page.path)}", ""]
        section = None
        for block in blocks:
            if block.section != section:
                # In bold, not a heading: the table of contents lists the releases and the pages,
                # and would otherwise repeat every changed section of the site once per release pair.
                section = block.section
                lines += [f"**{section or 'Introduction'}**", ""]
            name = (page.path, after_recordings.path(block).name)
            lines += _block_entry(block, old, new, before[name], after[name])
    lines += _anchors_table(before_recordings.anchors(), after_recordings.anchors(), old, new)
    return "\n".join(lines) + "\n"


def _anchors_table(old_anchors: dict[str, str], new_anchors: dict[str, str], old: str, new: str) -> list[str]:
    lines = ["### Source anchors", ""]
    if not old_anchors or not new_anchors:
        return lines + ["No anchors are recorded for one of the releases."]
    moved = sorted(t for t in old_anchors.keys() & new_anchors.keys() if old_anchors[t] != new_anchors[t])
    if not moved:
        return lines + ["No linked symbol moved."]
    lines += [
        f"{len(moved)} of {len(old_anchors.keys() | new_anchors.keys())} linked symbols moved:",
        "",
        f"| Symbol | torch {old} | torch {new} |",
        "|---|---|---|",
    ]
    return lines + [f"| `{t}` | {old_anchors[t]} | {new_anchors[t]} |" for t in moved]


def what_changed_page(markdown: str, root: Path, pages: list[Page], titles: dict[str, str]) -> str:
    return MARKER.sub(lambda m: compare(root, m["old"], m["new"], pages, titles), markdown)
