"""The execute step: what one edition's build checks and computes before any page is rendered.

`python -m handbook execute` runs it, and so does the mkdocs plugin unless that step already
ran on this tree (its record is fresh). It runs the pages (the execution pipeline, with its
cache), checks every source link, section, quoted value and typed number, and writes this
edition's chapter notebooks. Its record, `<cache>/runs/<edition>.json`, keeps the checked
results with the digest of the tree, torch and settings they belong to; a render step that
finds it fresh runs nothing. Nothing here knows a site generator: the site's configuration
is read as YAML, and a generator's plugin only maps its events onto an `Edition`.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import platform
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from handbook import languages, notebooks, switches, translations, versioned_prose
from handbook.environment import cache_root, installed_torch, minor_version, python_minor
from handbook.errors import InputError
from handbook.execution import pipeline, runner, tree_guard
from handbook.execution.blocks import Page, expand_includes, scan_docs
from handbook.execution.cache import check_cache_root, engine_version, output_settings
from handbook.execution.failures import failure_report, killed_processes, platform_note
from handbook.execution.recordings import Recordings
from handbook.execution.results import BlockRun, CorruptEntry, SiteRun, run_as_json, run_from_json
from handbook.execution.tree_guard import tree_digest
from handbook.markdown_structure import FenceError, without_heading_ids
from handbook.prose import guard as prose_guard
from handbook.prose.quotes import QUOTE, QuotedProse, resolve_quotes
from handbook.releases import recorded_releases
from handbook.rendering import PageRenderer, figure_path
from handbook.reports import what_changed
from handbook.sources import source_map
from handbook.sources.links import Citation, SourceLinker, sections_without_links
from handbook.sources.tree import SourceTree
from handbook.tree_files import confined, read_text, write_atomically, write_if_changed

CONFIG_FILE = "mkdocs.yml"
RECORD_FORMAT = 1


@dataclass(frozen=True)
class SiteConfig:
    """What the engine reads from the site's configuration: the pages, in reading order, by title."""

    docs_dir: str
    nav: dict[str, str]  # page path -> title, in the navigation's order
    sections_exempt: frozenset[str]  # pages whose `##` sections need no source link
    site_url: str | None = None  # where the site is published (the notebooks' links point there)
    repo_url: str | None = None  # the handbook's own repository, where each block's `file:line` links
    language: str = languages.DEFAULT  # the theme's language: the site's, and its pages'
    translates: str | None = None  # a translation's: the docs_dir of the pages it translates (their blocks run)

    @property
    def blocks_dir(self) -> str:
        """Where the pages whose blocks run are: a translation shows its original's results."""
        return self.translates or self.docs_dir


class _AnyTags(yaml.SafeLoader):
    """Reads mkdocs.yml without running its tags (`!!python/name:` and the like: none of them names a
    page), but `!ENV`, as MkDocs reads it: the first variable set, else the last item as the default."""


def _environment_value(loader: yaml.SafeLoader, node: yaml.Node):
    if isinstance(node, yaml.ScalarNode):
        names, default = [loader.construct_scalar(node)], None
    else:
        items = list(node.value)
        default = loader.construct_object(items.pop()) if len(items) > 1 else None
        names = [loader.construct_scalar(item) for item in items]
    return next((os.environ[name] for name in names if name in os.environ), default)


_AnyTags.add_constructor("!ENV", _environment_value)
_AnyTags.add_multi_constructor("!", lambda loader, suffix, node: None)
_AnyTags.add_multi_constructor("tag:yaml.org,2002:python/", lambda loader, suffix, node: None)


def _merged(base: dict, child: dict) -> dict:
    """`child` over `base` as MkDocs merges an `INHERIT`ed configuration: mappings merged key by key,
    everything else (lists included) replaced."""
    merged = dict(base)
    for key, value in child.items():
        both = isinstance(value, dict) and isinstance(base.get(key), dict)
        merged[key] = _merged(base[key], value) if both else value
    return merged


def _config_data(config_file: Path) -> dict:
    data = yaml.load(config_file.read_text(encoding="utf-8"), Loader=_AnyTags) or {}
    parent = data.pop("INHERIT", None)
    return _merged(_config_data(config_file.parent / parent), data) if parent else data


def read_config(config_file: Path) -> SiteConfig:
    data = _config_data(config_file)
    nav: dict[str, str] = {}

    def walk(items) -> None:
        for item in items or []:
            for title, target in item.items() if isinstance(item, dict) else [(None, item)]:
                if isinstance(target, list):
                    walk(target)
                elif isinstance(target, str) and target.endswith(".md"):
                    nav[target] = title or target

    walk(data.get("nav"))
    handbook = next(
        (entry["handbook"] for entry in data.get("plugins") or [] if isinstance(entry, dict) and "handbook" in entry),
        None,
    )
    repo_url = data.get("repo_url")
    root = config_file.parent
    # The pages it runs and publishes, and the theme's templates, are the repository's own.
    for what, directory in (
        ("docs_dir", data.get("docs_dir", "docs")),
        ("the handbook plugin's translates", (handbook or {}).get("translates")),
        ("theme.custom_dir", data["theme"].get("custom_dir") if isinstance(data.get("theme"), dict) else None),
    ):
        if directory is not None:
            confined(root, str(directory), f"{config_file.name}: {what}")
    return SiteConfig(
        data.get("docs_dir", "docs"),
        nav,
        frozenset((handbook or {}).get("sections_exempt", [])),
        data.get("site_url") or None,
        repo_url if isinstance(repo_url, str) and repo_url.startswith("https://") else None,
        theme.get("language") or languages.DEFAULT
        if isinstance(theme := data.get("theme"), dict)
        else languages.DEFAULT,
        (handbook or {}).get("translates"),
    )


@dataclass(frozen=True)
class Revision:
    """The commit a tree is built from, and the paths in which the tree differs from it."""

    commit: str | None
    uncommitted: frozenset[str] = frozenset()


def revision(root: Path) -> Revision:
    """`git rev-parse HEAD` of `root` when it is the top of a git checkout, else no commit."""

    def git(*args: str) -> str | None:
        try:
            done = subprocess.run(["git", *args], cwd=root, capture_output=True, text=True, timeout=30)
        except (OSError, subprocess.SubprocessError):
            return None
        return done.stdout if done.returncode == 0 else None

    top = git("rev-parse", "--show-toplevel")
    commit = git("rev-parse", "HEAD")
    if top is None or commit is None or Path(top.strip()).resolve() != root.resolve():
        return Revision(None)
    changed = (git("diff", "--name-only", "-z", "HEAD") or "") + (git("ls-files", "--others", "-z") or "")
    return Revision(commit.strip(), frozenset(path for path in changed.split("\0") if path))


@dataclass
class Edition:
    """One build's pages as its torch release and Python show them, with everything checked."""

    root: Path
    config: SiteConfig
    site: SiteRun
    linker: SourceLinker
    chapters: dict[str, str]  # pages with a notebook: path -> title
    titles: dict[str, str] = field(default_factory=dict)  # every page's first heading
    citations: list[Citation] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)  # the build fails on each (under serve: shown)
    inputs: dict[str, str] = field(default_factory=dict)  # page -> `render_inputs`, once its pages ran
    log: list[str] = field(default_factory=list)  # what the step did, for the build's log
    serving: bool = False  # for `mkdocs serve`: the notebooks link to the served site
    shown: dict[str, Page] = field(default_factory=dict)  # a translation's own pages (their lines), by path
    outdated: list[tuple[translations.Outdated, str]] = field(default_factory=list)  # with the date each changed

    @property
    def docs_dir(self) -> str:
        return self.config.docs_dir

    def shown_page(self, page: str) -> Page:
        """`page` as this build's Markdown has it (a translation's lines differ from its original's)."""
        return self.shown.get(page) or self.site.page(page)

    @functools.cached_property
    def revision(self) -> Revision:
        """The commit this build's blocks link to (read once per build)."""
        return revision(self.root)

    @property
    def release(self) -> str:
        return self.linker.tree.identity.release

    @property
    def python(self) -> str:
        """The Python this build runs its pages with: the one running it."""
        return platform.python_version()

    @property
    def notebooks(self) -> Path:
        """Where this edition's chapter notebooks are written (those of `mkdocs serve`, whose links
        differ, apart: a build beside it never publishes them; a translation's apart too)."""
        language = "" if self.config.language == languages.DEFAULT else f"-{self.config.language}"
        return cache_root(self.root) / "notebooks" / (edition_name() + language + ("-serve" if self.serving else ""))

    def pages(self) -> list[str]:
        """Every page under docs/, by path."""
        base = self.root / self.docs_dir
        return sorted(path.relative_to(base).as_posix() for path in base.rglob("*.md"))

    def versioned(self, markdown: str, page: str, keep_lines: bool = False) -> str:
        """The Markdown of `page` as this edition (torch release and Python) shows it."""
        render = versioned_prose.render_keeping_lines if keep_lines else versioned_prose.render
        return render(markdown, self.release, self.python, where=f"{self.docs_dir}/{page}")

    def quoted(self, markdown: str, page: str) -> QuotedProse:
        return resolve_quotes(markdown, page, self.output_of)

    def output_of(self, page: str, block_id: str) -> str | None:
        return next((r.output for r in self.site.results.get(page, []) if r.block.id == block_id), None)

    def page_markdown(self, markdown: str, page: str, reading_order: list, original_url: str | None = None) -> str:
        """A page's Markdown as the renderer is given it: versioned, quoted, source links resolved; in a
        translation, a notice on each outdated section, linking to the original at `original_url`."""
        markdown = self.quoted(self.versioned(markdown, page), page).markdown
        markdown = what_changed.what_changed_page(markdown, self.root, reading_order, self.titles, self.config.language)
        markdown = self.linker.rewrite(markdown, page).markdown
        notices = {
            outdated.section: translations.notice_line(
                self.config.language, date, f"{original_url or ''}#{outdated.section}"
            )
            for outdated, date in self.outdated
            if outdated.page == page and outdated.current is not None
        }
        markdown = translations.with_notices(markdown, notices, self.config.language)
        return languages.without_soft_breaks(markdown, self.config.language)

    @property
    def figures(self) -> Path:
        """Where this edition's figure files are written, to be published as files of the site (see `plugin`)."""
        return cache_root(self.root) / "figures" / (edition_name() + ("-serve" if self.serving else ""))

    def figure_files(self) -> list[str]:
        """Every figure of this edition, as a path among the site's files."""
        return [figure_path(r.block.page, r.block.id) for r in self.site.all_results() if r.block.figure and r.figure]

    def renderer(
        self,
        page: str,
        changes_url: str | None,
        colab_url: str | None,
        serving: bool,
        figure_urls: dict[str, str] | None = None,
    ) -> PageRenderer:
        """What renders `page`'s blocks: their results, and where each changed since the last release."""
        results = self.site.results.get(page, [])
        changed = {}
        if results and changes_url:
            changes = what_changed.changed_blocks(self.root, self.release, [self.site.page(page)])
            changed = {
                block.index: (minor_version(self.release), f"{changes_url}#{anchor}")
                for block, anchor in changes.items()
            }
        recordings = Recordings(self.root, self.release, python=self.python)
        return PageRenderer(
            page,
            results,
            repo_url=self.config.repo_url,
            commit=self.revision.commit,
            uncommitted=self.revision.uncommitted,
            show_failures=serving,
            changed=changed,
            colab_url=colab_url,
            other_pythons={r.block.index: others for r in results if (others := recordings.other_pythons(r.block))},
            figure_urls=figure_urls or {},
            language=self.config.language,
        )

    def render_inputs(self) -> dict[str, str]:
        """Per page, a digest of everything its HTML is made from: its Markdown with every include
        expanded, the results it shows and those it quotes from other pages, and what every page
        shares (recordings, the configuration and navigation, templates, the engine). A rebuild under
        `mkdocs serve --dirty` renders again each page whose digest changed (see `plugin.py`)."""
        shared = hashlib.sha256()
        for path, digest in sorted(tree_guard.snapshot(self.root).items()):
            if not path.startswith((f"{self.docs_dir}/", "snippets/")):
                shared.update(f"{path}\0{digest}\0".encode())
        inputs = {}
        for page in self.pages():
            where = f"{self.docs_dir}/{page}"
            try:
                markdown = expand_includes(read_text(self.root / where, where), self.root, where)
            except InputError as error:  # shown by the page's own checks; the page renders again
                markdown = f"unreadable: {error}"
            quoted = {match["page"] or page for match in QUOTE.finditer(markdown)} | {page}
            digest = hashlib.sha256(shared.digest() + markdown.encode())
            for source in sorted(quoted):
                digest.update(f"\0{source}\0{self.site.results.get(source, [])!r}".encode())
            inputs[page] = digest.hexdigest()
        return inputs

    def notebook_prose(self, markdown: str, page: str) -> str:
        """A text cell: snippet includes expanded, source links as plain links at this tag, links to
        the handbook's pages and anchors as addresses of the published chapter pages; headings without
        the `{#id}` a translation gives them, and without its translation marks (Jupyter shows neither)."""
        expanded = expand_includes(markdown, self.root, f"{self.docs_dir}/{page}")
        linked = self.linker.rewrite(expanded, page, plain=True).markdown
        base = notebooks.link_base(self.config.site_url, self.site.environment.torch, self.serving)
        text = languages.without_soft_breaks(
            translations.without_marks(without_heading_ids(linked)), self.config.language
        )
        return notebooks.with_site_links(text, page, base)


def edition_name() -> str:
    """What one build's own files are kept under: its torch release and Python."""
    return f"{installed_torch().release}-py{python_minor(platform.python_version())}"


def chapters(root: Path, config: SiteConfig, pages: list[Page] | None = None) -> dict[str, str]:
    """The pages of the navigation with executed blocks (not exempt ones), path -> title: each gets a notebook."""
    pages = scan_docs(root, config.docs_dir) if pages is None else pages
    with_blocks = {page.path for page in pages if page.blocks}
    return {
        page: title for page, title in config.nav.items() if page in with_blocks and page not in config.sections_exempt
    }


def prepare(root: Path, config_file: Path | None = None, serving: bool = False, reuse: bool = True) -> Edition:
    """The execute step for the installed torch: everything checked, notebooks written. With
    `reuse`, a fresh record of an earlier step stands for the run (nothing runs again)."""
    config = read_config(config_file or root / CONFIG_FILE)
    check_cache_root(cache_root(root))
    pipeline.prepare_page_processes(root)  # the settings pages inherit: part of the record's key
    linker = SourceLinker(SourceTree(root), config.language)
    shown = scan_docs(root, config.docs_dir)
    pages = scan_docs(root, config.blocks_dir) if config.translates else shown
    empty = SiteRun(pipeline.page_environment(root), pages)
    edition = Edition(root, config, empty, linker, chapters(root, config, shown), serving=serving)
    if config.translates:
        edition.shown = {page.path: page for page in shown}
        edition.problems += _check_translation(edition, pages)
    edition.problems += _check_source_links(edition)
    record = Record(root)
    # HANDBOOK_CACHE=0 asks for every page to run: no earlier run stands for one.
    stored = record.read() if reuse and not switches.off(switches.CACHE) else None
    site = pipeline.execute(
        root, config.blocks_dir, serving=serving, given=stored.runs if stored else None, pages=pages
    )
    from_record = stored is not None and not site.executed_pages and not site.refused
    edition.log += [f"a stored run was not believed, and its page not taken from it: {why}" for why in site.refused]
    if from_record:  # every page as the execute step ran it, checked again now
        site.executed_pages, site.seconds = stored.executed_pages, stored.seconds
        for result in site.all_results():
            result.ran_again = result.block.page in stored.ran_again
        edition.log.append(f"ran no page: the execute step's record of this tree is fresh ({record.shown})")
    else:
        edition.log += _execution_log(site)
    edition.site = site
    edition.log += [platform_note(site)] if not site.platform_recorded else []
    edition.log += killed_processes(site)
    if not site.ok:
        edition.problems.append(failure_report(site))
    edition.inputs = edition.render_inputs()
    edition.problems += _check_prose(edition)
    if not (from_record or edition.problems or site.tree_changed or switches.off(switches.EXECUTE)):
        record.write(site)  # a step that found problems records nothing: the build runs it again
        edition.log.append(f"recorded the run in {record.shown}: until the tree changes, a build runs no page")
    _write_notebooks(edition)
    _write_figures(edition)
    return edition


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


def _check_translation(edition: Edition, originals: list[Page]) -> list[str]:
    """A translation's blocks are its originals', unchanged; its outdated sections are listed (with the date
    each original changed) for the log, the pages' notices and `python -m handbook translations`."""
    errors: list[str] = []
    by_path = {page.path: page for page in originals}
    for path, page in sorted(edition.shown.items()):
        where = f"{edition.docs_dir}/{path}"
        original = by_path.get(path)
        if original is None:
            errors.append(f"{where}: translates no page: {edition.config.blocks_dir}/{path} does not exist")
            continue
        errors += translations.block_differences(where, list(original.blocks), list(page.blocks))
        original_file = f"{edition.config.blocks_dir}/{path}"
        original_text = read_text(edition.root / original_file, original_file)
        for section, line in translations.missing_sections(original_text, read_text(edition.root / where, where)):
            errors.append(
                f"{where}: the original's section {section!r} ({original_file}:{line}) has no heading here: add its "
                f"`## ... {{#{section}}}` (translated, or in English until it is), under which its notice shows"
            )
    for outdated in outdated_translations(edition.root, edition.config):
        date = changed_on_of(edition.root, edition.config, outdated)
        edition.outdated.append((outdated, date))
        edition.log.append(
            f"translation outdated: {edition.docs_dir}/{outdated.page} § {outdated.section}: {outdated.reason}"
        )
    return [f"{len(errors)} translation problem(s):\n" + "\n".join(errors)] if errors else []


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


def _check_source_links(edition: Edition) -> list[str]:
    """Every page's links resolved before anything runs, so that all bad links are reported at once."""
    errors: list[str] = []
    for page in edition.pages():
        shown = f"{edition.docs_dir}/{page}"
        markdown = edition.versioned(read_text(edition.root / shown, shown), page)
        edition.titles[page] = source_map.title_of(markdown, page)
        try:
            links = edition.linker.rewrite(markdown, page)
        except FenceError as error:
            raise InputError(f"{shown}:{error.line}: {error}") from error
        errors += links.errors
        edition.citations += links.citations
        if page not in edition.config.sections_exempt:
            errors += [f"{shown}: section '{title}' has no source link" for title in sections_without_links(markdown)]
    return [f"{len(errors)} source link problem(s):\n" + "\n".join(errors)] if errors else []


# What a page's checks found, and the notebook last written of it, by the inputs they were made from
# (`Edition.render_inputs`): under `mkdocs serve`, a rebuild does again only what an edit changed.
_prose_checked: dict[tuple[str, str], tuple[str, list[str]]] = {}  # (edition, page) -> (inputs, problems)
_notebooks_written: dict[Path, str] = {}  # notebook -> the inputs of its page


def _check_prose(edition: Edition) -> list[str]:
    """Quotes resolve against this edition's outputs; no typed number contradicts any edition's."""
    errors: list[str] = []
    releases = recorded_releases(edition.root)
    for page in edition.pages():
        inputs, key = edition.inputs.get(page), (edition_name(), page)
        checked = _prose_checked.get(key)
        if inputs is None or checked is None or checked[0] != inputs:
            markdown = (edition.root / edition.docs_dir / page).read_text(encoding="utf-8")
            problems = edition.quoted(edition.versioned(markdown, page, keep_lines=True), page).errors
            problems += prose_guard.contradictions(edition.root, page, markdown, releases, edition.docs_dir)
            checked = _prose_checked[key] = (inputs, problems)
        errors += checked[1]
    return [f"{len(errors)} prose problem(s):\n" + "\n".join(errors)] if errors else []


def _write_figures(edition: Edition) -> None:
    """This edition's figures, as files the site publishes (a figure's text was sanitised when it was drawn)."""
    for result in edition.site.all_results():
        if result.block.figure and result.figure:
            write_if_changed(edition.figures / figure_path(result.block.page, result.block.id), result.figure)


def _write_notebooks(edition: Edition) -> None:
    """This edition's notebook of every chapter, with the outputs its blocks printed."""
    for page_path, _title in edition.chapters.items():
        path = edition.notebooks / notebooks.notebook_path(page_path)
        inputs = edition.inputs.get(page_path)
        if inputs is not None and _notebooks_written.get(path) == inputs and path.is_file():
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
        _notebooks_written[path] = inputs


class Record:
    """The execute step's checked results, kept for the render step of the same tree, torch and settings."""

    def __init__(self, root: Path):
        self.root = root
        self.path = cache_root(root) / "runs" / f"{edition_name()}.json"
        self.shown = self.path.relative_to(root).as_posix() if self.path.is_relative_to(root) else str(self.path)

    @functools.cached_property
    def key(self) -> str:
        """What the results depend on: the tree the build reads, the torch and Python, the settings; taken
        once per step (a tree that pages changed is never recorded: see `prepare`)."""
        payload = {
            "format": RECORD_FORMAT,
            "tree": tree_digest(self.root),
            "environment": pipeline.page_environment(self.root).as_dict(),
            "engine": engine_version(),
            "settings": output_settings(),
            "limits": {name: switches.value(name) for name in switches.LIMITS},
        }
        return hashlib.sha256(json.dumps(payload, sort_keys=True).encode()).hexdigest()

    def read(self) -> Stored | None:
        """The runs recorded of this tree as it is now; None if there are none (or they are unreadable)."""
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
            if not isinstance(data, dict) or data.get("key") != self.key:
                return None
            runs = {page: [run_from_json(entry) for entry in entries] for page, entries in data["runs"].items()}
            return Stored(runs, list(data["executed_pages"]), float(data["seconds"]), set(data["ran_again"]))
        except (OSError, ValueError, KeyError, TypeError, AttributeError, CorruptEntry):
            return None

    def write(self, site: SiteRun) -> None:
        record = {
            "key": self.key,
            "runs": {page: [run_as_json(r) for r in results] for page, results in site.results.items()},
            "executed_pages": site.executed_pages,
            "seconds": site.seconds,
            "ran_again": sorted({r.block.page for r in site.all_results() if r.ran_again}),
        }
        write_atomically(self.path, json.dumps(record))


@dataclass
class Stored:
    """What the execute step recorded: every block's run, by page, and what it ran itself."""

    runs: dict[str, list[BlockRun]]
    executed_pages: list[str]
    seconds: float
    ran_again: set[str]
