"""The execute step's checks of what the pages say, each returning what it found.

Translations (a translated page's blocks are its original's; its outdated sections, dated),
source links (every page's, before anything runs, so that every bad link is reported at once),
and prose (quotes resolve against this edition's outputs; no typed number contradicts any
edition's). Each returns its problems and what it made; none changes the `Edition` it reads.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from handbook import translations
from handbook.edition import Edition
from handbook.errors import InputError
from handbook.execution.blocks import Page
from handbook.markdown_structure import FenceError
from handbook.prose import guard as prose_guard
from handbook.releases import recorded_releases
from handbook.run_record import edition_name
from handbook.site_config import SiteConfig
from handbook.sources import source_map
from handbook.sources.links import Citation, sections_without_links
from handbook.tree_files import read_text


def problems_of(kind: str, errors: list[str]) -> list[str]:
    """One problem for the build's report: `n <kind> problem(s):` and each error, or none."""
    return [f"{len(errors)} {kind} problem(s):\n" + "\n".join(errors)] if errors else []


@dataclass(frozen=True)
class TranslationCheck:
    problems: list[str]
    outdated: tuple[tuple[translations.Outdated, str], ...]  # each outdated section, with the date it changed
    log: list[str]


def check_translation(
    root: Path, config: SiteConfig, shown: dict[str, Page], originals: list[Page]
) -> TranslationCheck:
    """A translation's blocks are its originals', unchanged; its outdated sections are listed (with the date
    each original changed) for the log, the pages' notices and `python -m handbook translations`."""
    errors: list[str] = []
    by_path = {page.path: page for page in originals}
    for path, page in sorted(shown.items()):
        where = f"{config.docs_dir}/{path}"
        original = by_path.get(path)
        if original is None:
            errors.append(f"{where}: translates no page: {config.blocks_dir}/{path} does not exist")
            continue
        errors += translations.block_differences(where, list(original.blocks), list(page.blocks))
        original_file = f"{config.blocks_dir}/{path}"
        original_text = read_text(root / original_file, original_file)
        for section, line in translations.missing_sections(original_text, read_text(root / where, where)):
            errors.append(
                f"{where}: the original's section {section!r} ({original_file}:{line}) has no heading here: add its "
                f"`## ... {{#{section}}}` (translated, or in English until it is), under which its notice shows"
            )
    outdated = tuple((section, changed_on_of(root, config, section)) for section in outdated_translations(root, config))
    log = [
        f"translation outdated: {config.docs_dir}/{section.page} § {section.section}: {section.reason}"
        for section, _ in outdated
    ]
    return TranslationCheck(problems_of("translation", errors), outdated, log)


def changed_on_of(root: Path, config: SiteConfig, outdated: translations.Outdated) -> str:
    """The date the original of an outdated section changed (see `translations.changed_on`)."""
    original_file = f"{config.blocks_dir}/{outdated.page}"
    if not (root / original_file).is_file():
        return "?"
    return translations.changed_on(root, original_file, outdated.section, outdated.recorded)


def outdated_translations(root: Path, config: SiteConfig) -> list[translations.Outdated]:
    """Every section of the translation `config` builds that does not translate its original as it is now;
    a page of the original with no translation is listed as its section `top`."""
    found = []
    originals = sorted(
        p.relative_to(root / config.blocks_dir).as_posix() for p in (root / config.blocks_dir).rglob("*.md")
    )
    for page in originals:
        original = read_text(root / config.blocks_dir / page, f"{config.blocks_dir}/{page}")
        translated_file = root / config.docs_dir / page
        if not translated_file.is_file():
            found.append(translations.Outdated(page, translations.TOP, None, translations.revision("")))
            continue
        translated = read_text(translated_file, f"{config.docs_dir}/{page}")
        found += translations.outdated_sections(page, original, translated)
    return found


@dataclass(frozen=True)
class SourceLinkCheck:
    problems: list[str]
    titles: dict[str, str]  # every page's first heading
    citations: tuple[Citation, ...]


def check_source_links(edition: Edition) -> SourceLinkCheck:
    """Every page's links resolved before anything runs, so that all bad links are reported at once."""
    errors: list[str] = []
    titles: dict[str, str] = {}
    citations: list[Citation] = []
    for page in edition.pages():
        shown = f"{edition.docs_dir}/{page}"
        markdown = edition.versioned(read_text(edition.root / shown, shown), page)
        titles[page] = source_map.title_of(markdown, page)
        try:
            links = edition.linker.rewrite(markdown, page)
        except FenceError as error:
            raise InputError(f"{shown}:{error.line}: {error}") from error
        errors += links.errors
        citations += links.citations
        if page not in edition.config.sections_exempt:
            errors += [f"{shown}: section '{title}' has no source link" for title in sections_without_links(markdown)]
    return SourceLinkCheck(problems_of("source link", errors), titles, tuple(citations))


@dataclass
class Remembered:
    """What a page's checks found, and the notebook last written of it, by the inputs they were made from
    (`Edition.render_inputs`): under `mkdocs serve`, a rebuild does again only what an edit changed. The
    plugin keeps one for its builds; a command makes a fresh one."""

    prose: dict[tuple[str, str], tuple[str, list[str]]] = field(default_factory=dict)  # (edition, page) -> ...
    notebooks: dict[Path, str] = field(default_factory=dict)  # notebook -> the inputs of its page


def check_prose(edition: Edition, remembered: Remembered) -> list[str]:
    """Quotes resolve against this edition's outputs; no typed number contradicts any edition's."""
    errors: list[str] = []
    releases = recorded_releases(edition.root)
    for page in edition.pages():
        inputs, key = edition.inputs.get(page), (edition_name(), page)
        checked = remembered.prose.get(key)
        if inputs is None or checked is None or checked[0] != inputs:
            markdown = (edition.root / edition.docs_dir / page).read_text(encoding="utf-8")
            problems = edition.quoted(edition.versioned(markdown, page, keep_lines=True), page).errors
            problems += prose_guard.contradictions(edition.root, page, markdown, releases, edition.docs_dir)
            checked = remembered.prose[key] = (inputs, problems)
        errors += checked[1]
    return problems_of("prose", errors)
