"""One edition of the site, as the execute step made it: its pages as its torch and Python show them.

An `Edition` is what the render step reads (`handbook.plugin`): the site's run, the source
linker, the titles and citations, the problems found and the log, and how a page's Markdown,
its notebook's text and its render inputs are made for this torch release and Python.
"""

from __future__ import annotations

import functools
import hashlib
import platform
from dataclasses import dataclass, field
from pathlib import Path

from handbook import git, labs, languages, notebooks, switches, translations, versioned_prose
from handbook.environment import cache_root
from handbook.errors import InputError
from handbook.execution import tree_guard
from handbook.execution.blocks import Page, expand_includes
from handbook.execution.figures import figure_path
from handbook.execution.labs import Lab
from handbook.execution.results import SiteRun
from handbook.markdown_structure import without_heading_ids
from handbook.prose.quotes import QUOTE, QuotedProse, resolve_quotes
from handbook.reports import what_changed
from handbook.run_record import edition_name
from handbook.site_config import SiteConfig
from handbook.sources.links import Citation, SourceLinker
from handbook.tree_files import read_text


@dataclass(frozen=True)
class Revision:
    """The commit a tree is built from, and the paths in which the tree differs from it."""

    commit: str | None
    uncommitted: frozenset[str] = frozenset()


def revision(root: Path) -> Revision:
    """The commit `root` is checked out at, when it is the top of a git checkout, else no commit."""
    commit = git.head(root)
    return Revision(commit, git.changed_paths(root)) if commit else Revision(None)


@dataclass(frozen=True)
class Edition:
    """One build's pages as its torch release and Python show them, with everything checked. Made by
    `prebuild.prepare` stage by stage (`dataclasses.replace`), never changed once made."""

    root: Path
    config: SiteConfig
    site: SiteRun
    linker: SourceLinker
    chapters: dict[str, str]  # pages with a notebook: path -> title
    titles: dict[str, str] = field(default_factory=dict)  # every page's first heading
    citations: tuple[Citation, ...] = ()
    problems: tuple[str, ...] = ()  # the build fails on each (under serve: shown)
    inputs: dict[str, str] = field(default_factory=dict)  # page -> `render_inputs`, once its pages ran
    log: tuple[str, ...] = ()  # what the step did, for the build's log
    serving: bool = False  # for `mkdocs serve`: the notebooks link to the served site
    shown: dict[str, Page] = field(default_factory=dict)  # a translation's own pages (their lines), by path
    outdated: tuple[tuple[translations.Outdated, str], ...] = ()  # with the date each changed
    labs: dict[str, Lab] = field(default_factory=dict)  # this build's labs (a translation's own), by path
    settings: switches.Settings = field(default_factory=switches.read)  # the switches, as the build's entry read them

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
        return (
            cache_root(self.root, self.settings)
            / "notebooks"
            / (edition_name() + language + ("-serve" if self.serving else ""))
        )

    def pages(self) -> list[str]:
        """Every page under docs/, by path."""
        base = self.root / self.docs_dir
        return sorted(path.relative_to(base).as_posix() for path in base.rglob("*.md"))

    def versioned(self, markdown: str, page: str, keep_lines: bool = False) -> str:
        """The Markdown of `page` as this edition (torch release and Python) shows it."""
        render = versioned_prose.render_keeping_lines if keep_lines else versioned_prose.render
        return render(markdown, self.release, self.python, where=f"{self.docs_dir}/{page}")

    def quoted(self, markdown: str, page: str) -> QuotedProse:
        return resolve_quotes(markdown, page, self.output_of, self.docs_dir)

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
        return cache_root(self.root, self.settings) / "figures" / (edition_name() + ("-serve" if self.serving else ""))

    def figure_files(self) -> list[str]:
        """Every figure of this edition, as a path among the site's files."""
        return [figure_path(r.block.page, r.block.id) for r in self.site.all_results() if r.block.figure and r.figure]

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

    def lab_prose(self, markdown: str, lab: str, download: bool = False) -> str:
        """A lab's text cell (`handbook.labs`): versioned, source links as plain links at this tag, links to
        the handbook's pages relative to the lab's page, or for the reader's notebook (`download`) the
        published pages' addresses, as a chapter's notebook has them."""
        place = labs.markdown_place(lab)
        linked = self.linker.rewrite(self.versioned(markdown, place), place, plain=True).markdown
        if download:
            base = notebooks.link_base(self.config.site_url, self.site.environment.torch, self.serving)
        else:
            base = "../" * labs.page_url(lab).count("/")
        return notebooks.with_site_links(labs.text_cell(linked, self.config.language), place, base)
