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
from handbook.markdown_structure import fenced, shown_title
from handbook.messages import Words
from handbook.releases import previous_release
from handbook.sources.links import moved_anchors, moved_rows

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


def _block_entry(block: Block, old: str, new: str, before: str, after: str, words: Words) -> list[str]:
    # Measured values differ from run to run: what changed is the text around them.
    diff = unified_diff(masked(before), masked(after), block.id, (f"torch {old}", f"torch {new}"))
    context = f"{block.page}#{block.anchor}"
    # attr_list gives the paragraph its id when the list is on the paragraph's last line, alone.
    return [
        words(
            "[Block {index} in context]({context}), from `{origin}`:",
            index=block.index,
            context=context,
            origin=block.origin,
        ),
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


def compare(root: Path, old: str, new: str, pages: list[Page], titles: dict[str, str], language: str = "en") -> str:
    """The generated comparison of two releases' recordings, as Markdown under a `##` heading, in the
    site's `language`."""
    words = Words(language)
    before_recordings, after_recordings = Recordings(root, old), Recordings(root, new)
    if not before_recordings.exists or not after_recordings.exists:
        missing = old if not before_recordings.exists else new
        title = words("Note")
        note = "!!! note" + (f' "{title}"' if title != "Note" else "")  # the admonition's own title is English
        return f"{note}\n    {words('Nothing to compare yet: torch {release} has no recordings.', release=missing)}\n"
    before, after = before_recordings.outputs(), after_recordings.outputs()
    changed = {name for name in before.keys() & after.keys() if masked(before[name]) != masked(after[name])}
    only_old, only_new = before.keys() - after.keys(), after.keys() - before.keys()
    summary = words(
        "Of {total} recorded outputs, **{changed} differ** between torch {old} and torch {new}",
        total=len(before.keys() | after.keys()),
        changed=len(changed),
        old=old,
        new=new,
    )
    if only_old:
        summary += words(", {count} exist only for {release}", count=len(only_old), release=old)
    if only_new:
        summary += words(", {count} only for {release}", count=len(only_new), release=new)
    lines = [summary + words("."), ""]
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
                lines += [f"**{shown_title(section) if section else words('Introduction')}**", ""]
            name = (page.path, after_recordings.path(block).name)
            lines += _block_entry(block, old, new, before[name], after[name], words)
    lines += _anchors_table(before_recordings.anchors(), after_recordings.anchors(), old, new, words)
    return "\n".join(lines) + "\n"


def _anchors_table(
    old_anchors: dict[str, str], new_anchors: dict[str, str], old: str, new: str, words: Words
) -> list[str]:
    """The source anchors (linked symbols' lines) that moved between the two releases."""
    lines = [f"### {words('Source anchors')}", ""]
    if not old_anchors or not new_anchors:
        return lines + [words("No anchors are recorded for one of the releases.")]
    moved = moved_anchors(old_anchors, new_anchors)
    if not moved:
        return lines + [words("No linked symbol moved.")]
    lines += [
        words(
            "{moved} of {total} linked symbols moved:",
            moved=len(moved),
            total=len(old_anchors.keys() | new_anchors.keys()),
        ),
        "",
        f"| {words('Symbol')} | torch {old} | torch {new} |",
        "|---|---|---|",
    ]
    return lines + moved_rows(old_anchors, new_anchors)


def what_changed_page(
    markdown: str, root: Path, pages: list[Page], titles: dict[str, str], language: str = "en"
) -> str:
    """`markdown` with each comparison marker replaced by its comparison, in the site's `language`."""
    return MARKER.sub(lambda m: compare(root, m["old"], m["new"], pages, titles, language), markdown)
