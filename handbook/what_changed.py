"""The "What changed" page: the outputs and source anchors that differ between two torch releases.

Made from the committed recordings alone, so every version of the site shows the
same comparison. A page writes the prose; a line of its own,
`<!-- what-changed 2.13.0 2.14.1 -->`, is replaced by the generated comparison.
"""

from __future__ import annotations

import difflib
import re
from pathlib import Path

MARKER = re.compile(r"^<!-- what-changed (?P<old>\S+) (?P<new>\S+) -->$", re.MULTILINE)
ANCHORS = "source-anchors.tsv"


def read_anchors(directory: Path) -> dict[str, str]:
    path = directory / ANCHORS
    if not path.is_file():
        return {}
    return dict(line.split("\t", 1) for line in path.read_text(encoding="utf-8").splitlines() if "\t" in line)


def write_anchors(directory: Path, anchors: dict[str, str]) -> None:
    directory.mkdir(parents=True, exist_ok=True)
    (directory / ANCHORS).write_text("".join(f"{target}\t{lines}\n" for target, lines in sorted(anchors.items())), encoding="utf-8")


def _outputs(directory: Path) -> dict[str, str]:
    return {p.relative_to(directory).as_posix(): p.read_text(encoding="utf-8") for p in sorted(directory.rglob("*.txt"))}


def compare(root: Path, old: str, new: str, titles: dict[str, str]) -> str:
    old_dir, new_dir = root / "recordings" / f"torch-{old}", root / "recordings" / f"torch-{new}"
    if not old_dir.is_dir() or not new_dir.is_dir():
        missing = old if not old_dir.is_dir() else new
        return f"!!! note\n    Nothing to compare yet: torch {missing} has no recordings.\n"
    before, after = _outputs(old_dir), _outputs(new_dir)
    changed = sorted(name for name in before.keys() & after.keys() if before[name] != after[name])
    only_old, only_new = sorted(before.keys() - after.keys()), sorted(after.keys() - before.keys())
    lines = [
        f"Of {len(before.keys() | after.keys())} recorded outputs, **{len(changed)} differ** between torch {old} and torch {new}"
        + (f", {len(only_old)} exist only for {old}" if only_old else "")
        + (f", {len(only_new)} only for {new}" if only_new else "")
        + ".",
        "",
    ]
    by_page: dict[str, list[str]] = {}
    for name in changed:
        by_page.setdefault(name.split("/", 1)[0], []).append(name)
    for page, names in by_page.items():
        lines += [f"## {titles.get(page + '.md', page)}", ""]
        for name in names:
            block = name.split("/", 1)[1].removesuffix(".txt")
            diff = difflib.unified_diff(before[name].splitlines(), after[name].splitlines(), f"torch {old}", f"torch {new}", lineterm="")
            lines += [f"### `{block}`", "", f"[Read it in context]({page}.md)", "", "```diff", *diff, "```", ""]
    old_anchors, new_anchors = read_anchors(old_dir), read_anchors(new_dir)
    moved = sorted(t for t in old_anchors.keys() & new_anchors.keys() if old_anchors[t] != new_anchors[t])
    lines += ["## Source anchors", ""]
    if moved:
        lines += [f"{len(moved)} of {len(old_anchors.keys() | new_anchors.keys())} linked symbols moved:", "", f"| Symbol | torch {old} | torch {new} |", "|---|---|---|"]
        lines += [f"| `{t}` | {old_anchors[t]} | {new_anchors[t]} |" for t in moved]
    else:
        lines.append("No linked symbol moved." if old_anchors and new_anchors else "No anchors are recorded for one of the releases.")
    return "\n".join(lines) + "\n"


def render(markdown: str, root: Path, titles: dict[str, str]) -> str:
    return MARKER.sub(lambda m: compare(root, m["old"], m["new"], titles), markdown)
