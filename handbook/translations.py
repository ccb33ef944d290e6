"""A translation's pages against their originals: which revision of each original section they translate.

A translated page (`docs-zh/PAGE.md`) runs no block of its own: its blocks are those of its
original (`docs/PAGE.md`), byte for byte, and it shows the original's results. Each of its
sections (the text above the first `##` heading is the section `top`; then each `##`
section, known by its anchor id, which the translation keeps: `## 视图 {#views}`) carries a
mark `<!-- translates REVISION -->`: the revision of the original section it translates, a
digest of that section's text. When the original section changes, the digest no longer
matches and the translated section is outdated: its page shows a notice with the date the
original changed and a link to it, the build's log and `python -m handbook translations`
list it. `python -m handbook translations --mark PAGE` records the current revisions once a
translator has brought a page up to date.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from handbook import git
from handbook.execution.blocks import Block
from handbook.markdown_structure import EXPLICIT_ID, heading_id, headings, sections
from handbook.messages import Words

TOP = "top"  # the section above the first `##` heading: the title and the introduction
MARK = re.compile(r"^<!-- translates (?P<revision>[0-9a-f]{12}) -->$")


def section_texts(markdown: str) -> dict[str, tuple[int, str]]:
    """Each section's id -> (its heading's 0-based line, or -1 for `top`; its text without marks)."""
    lines = markdown.splitlines()
    found = sections(lines)
    starts = [section.heading.line for section in found]
    taken: set[str] = {heading_id(h.title) for h in headings(lines) if h.level > 1 and EXPLICIT_ID.search(h.title)}
    texts = {TOP: (-1, _text(lines[: starts[0] if starts else len(lines)]))}
    for section in found:
        texts[heading_id(section.heading.title, taken)] = (
            section.heading.line,
            _text(lines[section.heading.line + 1 : section.end]),
        )
    return texts


def _text(lines: list[str]) -> str:
    return "\n".join(line.rstrip() for line in lines if not MARK.match(line.strip())).strip("\n")


def without_marks(markdown: str) -> str:
    """`markdown` without its translation marks."""
    return "\n".join(line for line in markdown.split("\n") if not MARK.match(line.strip()))


def revision(text: str) -> str:
    """The revision of an original section: the first 12 hex digits of its text's SHA-256."""
    return hashlib.sha256(text.encode()).hexdigest()[:12]


def recorded_revisions(translated: str) -> dict[str, str | None]:
    """Each section of a translated page -> the original revision its mark names (None: no mark)."""
    lines = translated.splitlines()
    ids = section_texts(translated)
    bounds = sorted((line, section) for section, (line, _) in ids.items())
    recorded: dict[str, str | None] = {section: None for section in ids}
    for position, (start, section) in enumerate(bounds):
        end = bounds[position + 1][0] if position + 1 < len(bounds) else len(lines)
        for line in lines[max(start, 0) : end]:
            if found := MARK.match(line.strip()):
                recorded[section] = found["revision"]
                break
    return recorded


@dataclass(frozen=True)
class Outdated:
    """A section of a translated page that does not translate its original's current text."""

    page: str
    section: str  # the anchor id, or `top`
    recorded: str | None  # the revision the translation names (None: never marked)
    current: str | None  # the original's revision now (None: the original has no such section)

    @property
    def reason(self) -> str:
        if self.current is None:
            return "the original has no such section"
        if self.recorded is None:
            return "no translation mark"
        return f"the original changed (translates {self.recorded}, now {self.current})"


def outdated_sections(page: str, original: str, translated: str) -> list[Outdated]:
    """The sections of `translated` that do not translate `original` as it is now, in the original's order;
    a section of the original missing from the translation is one too."""
    current = {section: revision(text) for section, (_, text) in section_texts(original).items()}
    recorded = recorded_revisions(translated)
    found = [
        Outdated(page, section, recorded.get(section), now)
        for section, now in current.items()
        if recorded.get(section) != now
    ]
    return found + [Outdated(page, section, mark, None) for section, mark in recorded.items() if section not in current]


def missing_sections(original: str, translated: str) -> list[tuple[str, int]]:
    """The `##` sections of `original` that `translated` has no heading for (by anchor id): (id, the
    original heading's 1-based line). Such a section's notice would have nowhere to show."""
    have = section_texts(translated)
    return [(section, line + 1) for section, (line, _) in section_texts(original).items() if section not in have]


def marked(original: str, translated: str) -> str:
    """`translated` with each section's mark naming the original's current revision (added where missing)."""
    current = {section: revision(text) for section, (_, text) in section_texts(original).items()}
    lines = [line for line in translated.splitlines() if not MARK.match(line.strip())]
    text = "\n".join(lines)
    positions = section_texts(text)
    title = next((h.line for h in headings(lines) if h.level == 1), -1)
    inserts = {}
    for section, (line, _) in positions.items():
        if section in current:
            inserts[title if section == TOP else line] = f"<!-- translates {current[section]} -->"
    out = []
    if -1 in inserts:
        out.append(inserts[-1])
    for index, line in enumerate(lines):
        out.append(line)
        if index in inserts:
            out.append(inserts[index])
    return "\n".join(out) + ("\n" if translated.endswith("\n") else "")


def with_notices(translated: str, notices: dict[str, str], language: str) -> str:
    """The page with an admonition under each outdated section's heading (`notices`: section -> its body
    line, already formatted); lines are kept in place, the notice joins its heading's line."""
    if not notices:
        return translated
    title = Words(language)("This section's translation is outdated")
    lines = translated.splitlines()
    heading_lines = {section: line for section, (line, _) in section_texts(translated).items()}
    top_line = next((h.line for h in headings(lines) if h.level == 1), None)
    for section, body in notices.items():
        at = top_line if section == TOP else heading_lines.get(section)
        if at is None or at < 0:
            continue
        lines[at] += f'\n\n!!! warning "{title}"\n\n    {body}\n'
    return "\n".join(lines) + ("\n" if translated.endswith("\n") else "")


def status_markdown(outdated: list[tuple[Outdated, str]], titles: dict[str, str], language: str) -> str:
    """A section of the build's report (How this site is built): the outdated sections, with the date each
    original changed, or that there are none."""
    words = Words(language)
    lines = ["", f"## {words('Translation status')} {{#translation-status}}", ""]
    if not outdated:
        return "\n".join([*lines, words("Every section translates its English original as it is now."), ""])
    lines += [words("These sections translate an older English original:"), ""]
    lines += [f"| {words('Section')} | {words('English changed on')} |", "|---|---|"]
    for section, date in outdated:
        anchor = "" if section.section == TOP else f"#{section.section}"
        lines.append(
            f"| [{titles.get(section.page, section.page)} § {section.section}]({section.page}{anchor}) | {date} |"
        )
    return "\n".join([*lines, ""])


def notice_line(language: str, date: str, url: str) -> str:
    """The notice's line in the translation's language: the date the original changed, and a link to it."""
    return Words(language)(
        "The English original of this section changed on {date}; this translation has not caught up yet. "
        "[Read the English original]({url})",
        date=date,
        url=url,
    )


def block_differences(where: str, original: list[Block], translated: list[Block]) -> list[str]:
    """How a translated page's blocks differ from its original's: each must be the same code, with the
    same id and options, in the same order (the translation shows the original's results)."""
    problems = []
    for position, (mine, theirs) in enumerate(zip(translated, original, strict=False), 1):
        same = (mine.id, mine.code, mine.options) == (theirs.id, theirs.code, theirs.options)
        if not same:
            problems.append(
                f"{where}:{mine.page_line}: block {position} ({mine.id}) is not the original's block {position} "
                f"({theirs.id}, line {theirs.page_line}): a translation runs its original's blocks unchanged"
            )
    if len(translated) != len(original):
        problems.append(f"{where}: {len(translated)} executed block(s), the original has {len(original)}")
    return problems


def changed_on(root: Path, original_file: str, section: str, recorded: str | None) -> str:
    """The date (YYYY-MM-DD) the original section stopped being the revision `recorded`: today for an
    edit not committed yet, else the date of the oldest commit after the newest one that still had it."""

    def text_at(commit: str) -> str:
        return section_texts(git.file_at(root, commit, original_file)).get(section, (0, ""))[1]

    now = section_texts((root / original_file).read_text(encoding="utf-8")).get(section, (0, ""))[1]
    if now != text_at("HEAD"):
        return datetime.now(UTC).date().isoformat()
    changed = None
    for commit, date in git.file_history(root, original_file):
        if recorded is not None and revision(text_at(commit)) == recorded:
            break
        changed = date  # newest first: the last one before the break is the change
    return changed or datetime.now(UTC).date().isoformat()
