"""The execute step: what one edition's build checks and computes before any page is rendered.

`python -m handbook execute` runs it, and so does the MkDocs plugin unless that step already ran
on this tree (its record, `handbook.run_record`, is fresh). It runs the pages (the execution
pipeline, with its cache), checks every source link, section, quoted value and typed number
(`handbook.checks`), and writes this edition's chapter notebooks and figures. It reads the site's
configuration as one `SiteConfig` value (`handbook.site_config`), made by whoever calls it, and
returns a frozen `Edition` (`handbook.edition`). Nothing here knows a site generator.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

from handbook import checks, labs, languages, notebooks, switches
from handbook.checks import Remembered
from handbook.edition import Edition
from handbook.environment import cache_root
from handbook.execution import pipeline, runner
from handbook.execution.blocks import Page, scan_docs
from handbook.execution.cache import check_cache_root
from handbook.execution.failures import failure_report, killed_processes, platform_note
from handbook.execution.figures import figure_path
from handbook.execution.labs import scan_labs
from handbook.execution.results import SiteRun
from handbook.run_record import Record
from handbook.site_config import SiteConfig
from handbook.sources.links import SourceLinker
from handbook.sources.tree import SourceTree
from handbook.tree_files import write_if_changed


def chapters(config: SiteConfig, pages: list[Page]) -> dict[str, str]:
    """The pages of the navigation with executed blocks (not exempt ones), path -> title: each gets a notebook."""
    with_blocks = {page.path for page in pages if page.blocks}
    return {
        page: title
        for page, title in config.titles.items()
        if page in with_blocks and page not in config.sections_exempt
    }


def prepare(
    root: Path,
    config: SiteConfig,
    serving: bool = False,
    reuse: bool = True,
    remembered: Remembered | None = None,
    settings: switches.Settings | None = None,
) -> Edition:
    """The execute step for the installed torch: everything checked, notebooks written. With `reuse`, a
    fresh record of an earlier step stands for the run (nothing runs again). `remembered`: what earlier
    steps of the same process checked and wrote (under `mkdocs serve`, the plugin's). `settings`: the
    switches, as the caller's entry read them (read here when none are given)."""
    settings = settings or switches.read()
    remembered = remembered if remembered is not None else Remembered()
    check_cache_root(cache_root(root, settings))
    pipeline.prepare_page_processes(root, settings)  # the settings pages inherit: part of the record's key
    shown = scan_docs(root, config.docs_dir)
    pages = shown
    shown_labs = scan_labs(root, labs.labs_dir(config.language))
    lab_pages = [lab.page() for lab in shown_labs]
    if config.translates:  # it runs its original's blocks (the same, byte for byte: checked), named as its own
        pages = [page.shown_in(config.docs_dir) for page in scan_docs(root, config.blocks_dir)]
        original_labs = scan_labs(root, labs.labs_dir(languages.DEFAULT))
        lab_pages = [lab.page().shown_in(labs.labs_dir(config.language)) for lab in original_labs]
    linker = SourceLinker(SourceTree(root, settings=settings), config.language, config.docs_dir)
    empty = SiteRun(pipeline.page_environment(root), pages + lab_pages)
    shown_by_path = {lab.path: lab for lab in shown_labs}
    edition = Edition(
        root, config, empty, linker, chapters(config, shown), serving=serving, labs=shown_by_path, settings=settings
    )
    problems, log = [], []
    if config.translates:
        translated = checks.check_translation(root, config, {page.path: page for page in shown}, pages)
        lab_check = checks.check_lab_translation(root, config, original_labs, shown_labs)
        edition = dataclasses.replace(
            edition,
            shown={page.path: page for page in shown},
            outdated=translated.outdated + lab_check.outdated,
        )
        problems += translated.problems + lab_check.problems
        log += translated.log + lab_check.log
    links = checks.check_source_links(edition)
    lab_links = checks.check_lab_links(edition)
    edition = dataclasses.replace(edition, titles={**links.titles, **lab_links.titles}, citations=links.citations)
    problems += links.problems + lab_links.problems
    record = Record(root, settings)
    record.key  # noqa: B018  (taken before any page runs: the state of the tree the runs belong to)
    site, from_record, ran = _run(record, config, pages + lab_pages, serving, reuse)
    log += ran
    log += [platform_note(site)] if not site.platform_recorded else []
    log += killed_processes(site)
    if not site.ok:
        problems.append(failure_report(site))
    edition = dataclasses.replace(edition, site=site)
    edition = dataclasses.replace(edition, inputs=edition.render_inputs())
    problems += checks.check_prose(edition, remembered)
    if not (from_record or problems or site.tree_changed or not settings.execute):
        record.write(site)  # a step that found problems records nothing: the build runs it again
        log.append(f"recorded the run in {record.shown}: until the tree changes, a build runs no page")
    edition = dataclasses.replace(edition, problems=tuple(problems), log=tuple(log))
    _write_notebooks(edition, remembered)
    _write_lab_notebooks(edition)
    _write_figures(edition)
    return edition


def _run(
    record: Record, config: SiteConfig, pages: list[Page], serving: bool, reuse: bool
) -> tuple[SiteRun, bool, list[str]]:
    """Every page run, or taken from a fresh record of this tree and checked again: the site's run, whether
    it came from the record, and what the log says of it."""
    root = record.root
    # HANDBOOK_CACHE=0 asks for every page to run: no earlier run stands for one.
    settings = record.settings
    stored = record.read() if reuse and settings.cache else None
    site = pipeline.execute(
        root,
        config.blocks_dir,
        serving=serving,
        given=stored.runs if stored else None,
        pages=pages,
        settings=settings,
    )
    refused = [f"a stored run was not believed, and its page not taken from it: {why}" for why in site.refused]
    if stored is not None and not site.executed_pages and not site.refused:  # every page as the execute step ran it
        site.executed_pages, site.seconds = stored.executed_pages, stored.seconds  # checked again now
        for result in site.all_results():
            result.ran_again = result.block.page in stored.ran_again
        return site, True, [f"ran no page: the execute step's record of this tree is fresh ({record.shown})"]
    return site, False, refused + _execution_log(site)


def _execution_log(site: SiteRun) -> list[str]:
    executed = site.executed_pages
    cached = sum(1 for page in site.pages if page.blocks) - len(executed)
    lines = [
        f"executed {len(executed)} page(s) in {site.seconds:.1f} "
        f"s{': ' + ', '.join(executed) if executed else ''}; {cached or 'none'} came from the cache"
    ]
    if executed and runner.confinements:
        lines.append(f"pages saw {'; '.join(sorted(runner.confinements))}")
    return lines


def _write_figures(edition: Edition) -> None:
    """This edition's figures, as files the site publishes (a figure's text was sanitised when it was drawn)."""
    for result in edition.site.all_results():
        if result.block.figure and result.figure:
            write_if_changed(edition.figures / figure_path(result.block.page, result.block.id), result.figure)


def _write_notebooks(edition: Edition, remembered: Remembered) -> None:
    """This edition's notebook of every chapter, with the outputs its blocks printed."""
    for page_path, _title in edition.chapters.items():
        path = edition.notebooks / notebooks.notebook_path(page_path)
        inputs = edition.inputs.get(page_path)
        if inputs is not None and remembered.notebooks.get(path) == inputs and path.is_file():
            continue
        source = (edition.root / edition.docs_dir / page_path).read_text(encoding="utf-8")
        # Lines kept: the notebook finds each block by its line in the page.
        markdown = edition.quoted(edition.versioned(source, page_path, keep_lines=True), page_path).markdown
        outputs = {r.block.id: r.output for r in edition.site.results.get(page_path, [])}
        figures = {r.block.id: r.figure for r in edition.site.results.get(page_path, []) if r.figure}
        notebook = notebooks.chapter_notebook(
            markdown,
            edition.shown_page(page_path),
            outputs,
            edition.site.environment.torch,
            lambda text, p=page_path: edition.notebook_prose(text, p),
            figures,
            edition.config.language,
        )
        notebooks.write(notebook, path)
        remembered.notebooks[path] = inputs


def _write_lab_notebooks(edition: Edition) -> None:
    """Each lab's two notebooks (`handbook.labs`): its page's, which mkdocs-jupyter renders, and the reader's."""
    language = edition.config.language
    for path, lab in edition.labs.items():
        outputs = {r.block.id: r.output for r in edition.site.results.get(path, [])}
        torch = edition.site.environment.torch
        for download, target in ((False, labs.page_path(path)), (True, labs.notebook_path(path))):
            notebook = labs.lab_notebook(
                lab,
                outputs,
                torch,
                lambda text, d=download, p=path: edition.lab_prose(text, p, download=d),
                language,
                download=download,
            )
            notebooks.write(notebook, edition.notebooks / target)
