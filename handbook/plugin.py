"""The mkdocs plugin: a thin adapter from mkdocs' events to the execute step's `Edition`.

Everything it shows was computed and checked by `handbook.prebuild` (which it calls, and
which reuses a fresh record of `python -m handbook execute`); here only what MkDocs needs:
its files, its navigation, each page's Markdown and HTML, and the report beside the site.
It reads its configuration once, as MkDocs validated it (`SiteConfig.from_mkdocs`), keeps
what a rebuild under `mkdocs serve` reuses on itself, and gives markdown-exec back its own
formatters when MkDocs shuts down.
"""

from __future__ import annotations

import logging
import subprocess
from datetime import UTC, datetime
from pathlib import Path

import markdown_exec
from mkdocs.config import config_options
from mkdocs.config.base import Config
from mkdocs.exceptions import PluginError
from mkdocs.plugins import BasePlugin, event_priority
from mkdocs.structure.files import File

from handbook import (
    git,
    lab_pages,
    labs,
    languages,
    notebooks,
    page_meta,
    page_weight,
    rebuilds,
    switches,
    translations,
)
from handbook.checks import Remembered
from handbook.edition import Edition
from handbook.errors import InputError, failed_command
from handbook.execution.figures import figure_path
from handbook.execution.tree_guard import tree_digest
from handbook.log_text import escaped
from handbook.markdown_structure import heading_id, headings
from handbook.messages import Words
from handbook.prebuild import prepare
from handbook.rendering import PageRenderer
from handbook.reports import site_report, what_changed
from handbook.reports.execution_report import write_report
from handbook.site_config import SiteConfig
from handbook.sources import source_map

log = logging.getLogger("mkdocs.plugins.handbook")


# Generated pages left out of search: the Source map (a table of what the chapters link, which are
# indexed themselves) and How this site is built (the build's report); the index is part of every
# page's transfer (tests/site/test_browser.py's budget).
UNSEARCHED = {source_map.PAGE, site_report.PAGE}
# A lab names its chapter's concepts often in little text: at 0.5 the compile lab came before The
# compile stack for 图中断 and 守卫 (tests/site/test_chinese_edition.py).
LAB_SEARCH_BOOST = 0.25


class HandbookConfig(Config):
    # Pages whose `##` sections need no source link (the home page, say).
    sections_exempt = config_options.ListOfItems(config_options.Type(str), default=[])
    # A translation's build (mkdocs.zh.yml): the docs_dir of the pages it translates, whose blocks it shows.
    translates = config_options.Optional(config_options.Type(str))


class HandbookPlugin(BasePlugin[HandbookConfig]):
    serving = False
    dirty = False  # `mkdocs serve --dirty` (`make serve`): a rebuild renders only the pages that changed
    edition: Edition | None = None
    renderer: PageRenderer | None = None  # the page being rendered

    def on_startup(self, *, command: str, dirty: bool) -> None:
        # MkDocs keeps a plugin that has this event for every rebuild of one `mkdocs serve`:
        # what the last rebuild rendered is known to the next.
        self.serving = command == "serve"
        self.dirty = dirty
        self.render_inputs: dict[str, str] = {}  # page -> what it was last rendered from
        self.rendered: set[str] = set()  # the URLs of the pages this build rendered
        self.remembered = Remembered()  # what the execute step checked and wrote, for the next rebuild
        if dirty:
            rebuilds.quiet_dirty_warning()

    def on_config(self, config):
        self.root = Path(config.config_file_path).resolve().parent
        version = config.extra.get("version")
        if version is not None and not version.get("provider"):
            # Outside a mike deployment there is no versions.json for a selector to read.
            del config.extra["version"]
        # pymdownx.snippets resolves base_path against the working directory; the scan
        # resolves includes against the config's directory. Make both the same.
        snippets = config.mdx_configs.get("pymdownx.snippets")
        if snippets is not None:
            snippets["base_path"] = [str(self.root)]
            snippets["restrict_base_path"] = True  # as the scan, which also refuses links, has checked
        # markdown-exec's formatter registry is its own global; the page being rendered is ours, until
        # MkDocs shuts down (`on_shutdown` gives it back).
        self.formatters = {language: markdown_exec.formatters.get(language) for language in ("python", "py")}
        for language in self.formatters:
            markdown_exec.formatters[language] = self._format_python
        try:
            self.site_config = SiteConfig.from_mkdocs(config, self.root)
            self.settings = switches.read()  # the switches, read once per build, passed down from here
        except InputError as error:
            raise PluginError(str(error)) from error
        return config

    def on_shutdown(self) -> None:
        for language, formatter in getattr(self, "formatters", {}).items():
            if formatter is None:
                markdown_exec.formatters.pop(language, None)
            else:
                markdown_exec.formatters[language] = formatter

    def on_files(self, files, *, config):
        try:
            self.edition = edition = prepare(
                self.root,
                self.site_config,
                serving=self.serving,
                remembered=getattr(self, "remembered", None),
                settings=self.settings,
            )
        except InputError as error:
            raise PluginError(escaped(str(error))) from error
        except subprocess.CalledProcessError as failed:
            raise PluginError(failed_command(failed)) from failed
        for line in edition.log:
            log.info(escaped(line))
        if edition.site.tree_changed:
            log.warning(
                "the tree changed while pages ran (your own edit, or a page's): nothing of the runs it may have "
                "touched was cached, and the rebuild your edit starts runs them again:\n"
                + escaped("\n".join(edition.site.tree_changed))
            )
        config.extra["handbook"] = header_values(edition, datetime.now(UTC).date().isoformat())
        if edition.problems:
            message = escaped("\n\n".join(edition.problems))
            if not self.serving:
                raise PluginError(message)
            log.error(message)
        tag, language = edition.linker.tree.identity.tag, edition.config.language
        source_map_page = source_map.render(edition.citations, edition.titles, tag, language)
        files.append(File.generated(config, source_map.PAGE, content=source_map_page))
        steady = site_report.stable_outputs(self.root, language)
        site_report_page = site_report.render(edition.site, edition.titles, language, steady)
        if edition.config.translates:  # the build's report lists what no longer translates its original
            site_report_page += translations.status_markdown(edition.outdated, edition.titles, language)
        files.append(File.generated(config, site_report.PAGE, content=site_report_page))
        for page in edition.chapters:  # each chapter's notebook, a file of the site (CONTRIBUTING.md, "Notebooks")
            files.append(
                File(
                    notebooks.notebook_path(page),
                    src_dir=str(edition.notebooks),
                    dest_dir=config.site_dir,
                    use_directory_urls=config.use_directory_urls,
                )
            )
        if edition.config.translates:  # the original's files that are not pages (stylesheets): one copy in the tree
            for path in translation_assets(self.root / edition.config.translates, files):
                files.append(
                    File(
                        path,
                        src_dir=str(self.root / edition.config.translates),
                        dest_dir=config.site_dir,
                        use_directory_urls=config.use_directory_urls,
                    )
                )
        for lab in edition.labs:  # each lab's page (mkdocs-jupyter renders it) and notebook (CONTRIBUTING.md, "Labs")
            for path in (labs.page_path(lab), labs.notebook_path(lab)):
                files.append(
                    File(
                        path,
                        src_dir=str(edition.notebooks),
                        dest_dir=config.site_dir,
                        use_directory_urls=config.use_directory_urls,
                    )
                )
        for path in edition.figure_files():  # each block's figure, a file of the site (CONTRIBUTING.md, "Figures")
            files.append(File(path, src_dir=str(edition.figures), dest_dir=config.site_dir, use_directory_urls=False))
        if self.dirty:
            changed = rebuilds.changed(self.render_inputs, edition.inputs)
            if self.render_inputs:  # the first build renders every page
                log.info(f"pages whose inputs changed, rendered again: {', '.join(sorted(changed)) or 'none'}")
            rebuilds.render_again(files, changed)
            self.render_inputs, self.rendered = edition.inputs, set()
        return files

    def on_nav(self, nav, *, config, files):
        # The pages as this build shows them: a translation's sections are its own (What changed names them).
        order = {page.file.src_uri: position for position, page in enumerate(nav.pages)}
        chapters = [page for page in self.edition.site.pages if page.path.endswith(".md")] if self.edition else []
        pages = [self.edition.shown_page(page.path) for page in chapters]
        self.pages_in_reading_order = sorted(pages, key=lambda p: order.get(p.path, len(order)))
        return nav

    def on_page_markdown(self, markdown, *, page, config, files):
        src = page.file.src_uri
        edition = self.edition
        if labs.lab_of_page(src):  # mkdocs-jupyter renders it from its notebook; the Markdown is not read
            self.renderer = None
            return markdown
        changes = files.get_file_from_path(what_changed.PAGE)
        colab = (
            notebooks.colab_url(
                config.repo_url, edition.site.environment.torch, src, languages.deploy_prefix(edition.config.language)
            )
            if src in edition.chapters
            else None
        )
        figure_urls = {
            result.block.id: figure.url_relative_to(page.file)
            for result in edition.site.results.get(src, [])
            if result.figure and (figure := files.get_file_from_path(figure_path(src, result.block.id)))
        }
        self.renderer = PageRenderer.for_page(
            edition,
            src,
            changes.url_relative_to(page.file) if changes else None,
            colab,
            serving=self.serving,
            figure_urls=figure_urls,
        )
        if page.file.generated_by:
            return markdown
        if problems := page_meta.front_matter(page.meta, f"{edition.docs_dir}/{src}"):
            raise PluginError("\n".join(problems))
        original = next(
            (alternate for alternate in self.alternates(config, page) if alternate["lang"] == languages.DEFAULT), None
        )
        markdown = edition.page_markdown(
            markdown, src, self.pages_in_reading_order, original["link"] if original else None
        )
        if src in edition.chapters:
            notebook = files.get_file_from_path(notebooks.notebook_path(src))
            notebook_url = notebook.url_relative_to(page.file)
            markdown = notebooks.with_notebook_links(markdown, notebook_url, colab, edition.config.language)
        return markdown

    def on_page_content(self, html, *, page, config, files):
        if lab := labs.lab_of_page(page.file.src_uri):
            self.rendered.add(page.url)
            return self._lab_page(html, page, lab, config, files)
        if page.file.src_uri in UNSEARCHED:
            page.meta["search"] = {"exclude": True}
        self.rendered.add(page.url)
        if "description" not in page.meta and (text := page_meta.description(html)):
            page.meta["description"] = text
        if self.renderer and page.present_anchor_ids is not None:  # links to blocks are valid, not "missing" INFO lines
            page.present_anchor_ids |= self.renderer.anchors()
        if page.present_anchor_ids is not None:  # `{#\_\_x\_\_}`: MkDocs reads the id before its escapes are undone
            page.present_anchor_ids |= {heading_id(h.title) for h in headings(page.markdown.splitlines())}
        missing = self.renderer.not_rendered() if self.renderer else []
        self.renderer = None
        if missing:
            raise PluginError(
                f"{self.edition.docs_dir}/{page.file.src_uri}: blocks found by the scan were not rendered: "
                + ", ".join(missing)
            )
        return page_weight.without_plain_token_spans(html)

    def _lab_page(self, html: str, page, lab: str, config, files) -> str:
        """mkdocs-jupyter's page of a lab, fitted to the site (`handbook.lab_pages`), with its table of contents."""
        edition = self.edition
        shown = edition.labs[lab]
        notebook = files.get_file_from_path(labs.notebook_path(lab)).url_relative_to(page.file)
        colab = notebooks.colab_url(
            config.repo_url,
            edition.site.environment.torch,
            labs.markdown_place(lab),
            languages.deploy_prefix(edition.config.language),
        )
        prose = labs.prose((self.root / shown.file).read_text(encoding="utf-8"), shown)
        original = next(
            (alternate for alternate in self.alternates(config, page) if alternate["lang"] == languages.DEFAULT), None
        )
        notices = {  # a translation's outdated sections, each with the date its original changed and its address
            outdated.section: (date, f"{original['link'] if original else ''}#{outdated.section}")
            for outdated, date in edition.outdated
            if outdated.page == page.file.src_uri and outdated.current is not None
        }
        words = Words(edition.config.language)
        try:
            fitted = lab_pages.fit(html, lab_pages.section_ids(prose), words, notebook, colab, notices)
        except (ValueError, StopIteration) as error:
            raise PluginError(f"{shown.file}: its page, as mkdocs-jupyter rendered it: {error}") from error
        page.toc = fitted.toc
        # Found by search, below the chapters: a query for a concept leads to the chapter that explains it
        # first, and to the lab that practises it after (Material's per-page boost).
        page.meta["search"] = {"boost": LAB_SEARCH_BOOST}
        if text := page_meta.description(fitted.content):
            page.meta["description"] = text
        return page_weight.without_plain_token_spans(fitted.content)

    def _format_python(self, **options) -> str:
        if self.renderer is None:
            raise PluginError("a Python block was rendered outside a page the handbook scanned")
        return self.renderer.format_python(**options)

    def alternates(self, config, page) -> list[dict[str, str]]:
        """The language switch's entries, each leading to this page in that language, same edition."""
        return languages.page_alternates(
            config.extra.get("alternate") or [], self.edition.config.language, config.site_url, page.url
        )

    def on_page_context(self, context, *, page, config, nav):
        context["handbook_alternates"] = self.alternates(config, page)
        if lab := labs.lab_of_page(page.file.src_uri):  # its page is made from its file under labs/
            file = self.edition.labs[lab].file
            page.edit_url = f"{config.repo_url.rstrip('/')}/edit/main/{file}" if config.repo_url else None
            if date := git.last_changed(self.root, file):
                page.meta["last_changed"] = date
                context["handbook_last_changed"] = Words(self.edition.config.language)(
                    "Page last changed on {date}.", date=date
                )
            return context
        if not page.file.generated_by:
            page.meta["last_changed"] = date = last_changed(self.root, self.edition.docs_dir, page.file.src_uri)
            if date:
                words = Words(self.edition.config.language)
                context["handbook_last_changed"] = words("Page last changed on {date}.", date=date)
        return context

    @event_priority(100)  # before the search plugin writes its index
    def on_post_build(self, *, config):
        if self.dirty:
            rebuilds.merge_search_index(config.plugins, self.rendered)
        if not self.edition:
            return
        report = Path(config.site_dir) / "execution-report.json"
        write_report(self.edition.site, report, tree_digest(self.root), self.edition.settings)


def header_values(edition: Edition, date: str) -> dict:
    """What overrides/main.html shows on every page (`config.extra.handbook`): the environment the
    examples ran in, the banner's lead (`site_report.Provenance`), and the template's words in the
    site's language (templates cannot import `handbook.messages`)."""
    environment, language = edition.site.environment, edition.config.language
    words = Words(language)
    values = environment.as_dict() | {"date": date, "lead": site_report.Provenance.of(edition.site).lead(language)}
    values["words"] = {
        "environment": words(
            ", Python {python}, on {device}, on {date}.",
            python=environment.python,
            device=environment.device,
            date=date,
        ),
        "how_built": words("How this site is built"),
        "outdated": words("This version of the handbook was executed against an older torch."),
        "latest": words("Read the latest version."),
        "annotation": words("Annotation"),
    }
    return values


def translation_assets(original_dir: Path, files) -> list[str]:
    """The original's files other than pages that the translation's own tree lacks (its stylesheets)."""
    return sorted(
        path.relative_to(original_dir).as_posix()
        for path in original_dir.rglob("*")
        if path.is_file()
        and path.suffix != ".md"
        and files.get_file_from_path(path.relative_to(original_dir).as_posix()) is None
    )


def last_changed(root: Path, docs_dir: str, page: str) -> str | None:
    """The date of the last commit that touched a page, if the tree is a git checkout."""
    return git.last_changed(root, f"{docs_dir}/{page}")
