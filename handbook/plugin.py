"""The mkdocs plugin: glue between mkdocs' events and the handbook's modules."""

from __future__ import annotations

import logging
import platform
import subprocess
from datetime import UTC, datetime
from pathlib import Path

import markdown_exec
from mkdocs.config import config_options
from mkdocs.config.base import Config
from mkdocs.exceptions import PluginError
from mkdocs.plugins import BasePlugin
from mkdocs.structure.files import File

from handbook import notebooks, versioned_prose
from handbook.environment import cache_root, installed_torch, minor_version, python_minor
from handbook.errors import InputError, failed_command
from handbook.execution import runner
from handbook.execution.blocks import expand_includes, scan_docs
from handbook.execution.failures import failure_report, killed_processes, platform_note
from handbook.execution.pipeline import SiteRun, execute
from handbook.execution.recordings import Recordings
from handbook.execution.runner import SettingError
from handbook.execution.tree_guard import tree_digest
from handbook.markdown_structure import FenceError
from handbook.prose import guard as prose_guard
from handbook.prose.quotes import resolve_quotes
from handbook.releases import recorded_releases
from handbook.rendering import PageRenderer
from handbook.reports import site_report, what_changed
from handbook.reports.execution_report import write_report
from handbook.sources import source_map
from handbook.sources.links import Citation, SourceLinker, sections_without_links
from handbook.sources.tree import SourceError, SourceTree
from handbook.tree_files import read_text

log = logging.getLogger("mkdocs.plugins.handbook")


class HandbookConfig(Config):
    # Pages whose `##` sections need no source link (the home page, say).
    sections_exempt = config_options.ListOfItems(config_options.Type(str), default=[])


class HandbookPlugin(BasePlugin[HandbookConfig]):
    serving = False
    site: SiteRun | None = None
    renderer: PageRenderer | None = None  # the page being rendered

    def on_startup(self, *, command: str, dirty: bool) -> None:
        self.serving = command == "serve"

    def on_config(self, config):
        self.root = Path(config.config_file_path).resolve().parent
        self.docs_dir = Path(config.docs_dir).resolve().relative_to(self.root).as_posix()
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
        # markdown-exec's formatter registry is its own global; the page being rendered is ours.
        markdown_exec.formatters["python"] = self._format_python
        markdown_exec.formatters["py"] = self._format_python
        self.chapters = self._chapters(config.nav or [])
        jupyter = config.plugins.get("mkdocs-jupyter")
        if jupyter is not None:
            # Its cache evicts every entry the current build did not use: one directory per
            # edition, so that building one edition does not empty another's.
            jupyter.config["cache_dir"] = str(cache_root(self.root) / "mkdocs-jupyter" / self.edition)
            # It logs every conversion and copy at INFO; the build log names what ran, not that.
            for name in ("mkdocs.plugins.mkdocs_jupyter", "mkdocs.mkdocs-jupyter"):
                logging.getLogger(name).setLevel(logging.WARNING)
        if self.chapters:
            config.nav.append(
                {"Notebooks": [{title: notebooks.notebook_path(page)} for page, title in self.chapters.items()]}
            )
        return config

    def _chapters(self, nav: list) -> dict[str, str]:
        """Pages of the navigation with executed blocks (not exempt ones), by path -> title: each gets a notebook."""
        entries: dict[str, str] = {}

        def walk(items) -> None:
            for item in items:
                for title, target in item.items() if isinstance(item, dict) else [(None, item)]:
                    if isinstance(target, list):
                        walk(target)
                    elif (
                        isinstance(target, str) and target.endswith(".md") and target not in self.config.sections_exempt
                    ):
                        entries[target] = title or target

        walk(nav)
        try:
            with_blocks = {page.path for page in scan_docs(self.root, self.docs_dir, set(entries)) if page.blocks}
        except InputError as error:
            raise PluginError(str(error)) from error
        return {page: title for page, title in entries.items() if page in with_blocks}

    def on_files(self, files, *, config):
        try:
            problems = self._check_source_links(files)
            self.site = execute(self.root, self.docs_dir, serving=self.serving)
        except (InputError, SettingError) as error:
            raise PluginError(str(error)) from error
        except subprocess.CalledProcessError as failed:
            raise PluginError(failed_command(failed)) from failed
        executed = self.site.executed_pages
        cached = sum(1 for page in self.site.pages if page.blocks) - len(executed)
        log.info(
            f"executed {len(executed)} page(s) in {self.site.seconds:.1f} "
            f"s{': ' + ', '.join(executed) if executed else ''}; {cached or 'none'} came from the cache"
        )
        if executed:
            log.info(f"pages saw {'; '.join(sorted(runner.confinements))}")
        if self.site.tree_changed:
            log.warning(
                "the tree changed while pages ran (your own edit, or a page's): nothing of the runs it may have "
                "touched was cached, and the rebuild your edit starts runs them again:\n"
                + "\n".join(self.site.tree_changed)
            )
        if not self.site.platform_recorded:
            log.info(platform_note(self.site))
        for line in killed_processes(self.site):
            log.info(line)
        if not self.site.ok:
            problems.append(failure_report(self.site))
        problems += self._check_prose(files)
        config.extra["handbook"] = self.site.environment.as_dict()
        config.extra["handbook"]["date"] = datetime.now(UTC).date().isoformat()
        if problems:
            message = "\n\n".join(problems)
            if not self.serving:
                raise PluginError(message)
            log.error(message)
        files.append(
            File.generated(
                config,
                source_map.PAGE,
                content=source_map.render(self.citations, self.titles, self.linker.tree.identity.tag),
            )
        )
        files.append(File.generated(config, site_report.PAGE, content=site_report.render(self.site, self.titles)))
        for file in self._write_notebooks(config):
            files.append(file)
        return files

    def _write_notebooks(self, config) -> list[File]:
        """This edition's notebook of every chapter, written where mkdocs-jupyter (next in the
        plugin list) picks them up as pages."""
        directory = cache_root(self.root) / "notebooks" / self.edition
        written = []
        for page_path in self.chapters:
            page = self.site.page(page_path)
            source = (self.root / self.docs_dir / page_path).read_text(encoding="utf-8")
            # Lines kept: the notebook finds each block by its line in the page.
            markdown = self._quoted(self._versioned(source, page_path, keep_lines=True), page_path).markdown
            outputs = {r.block.id: r.output for r in self.site.results.get(page_path, [])}
            notebook = notebooks.chapter_notebook(
                markdown,
                page,
                outputs,
                self.site.environment.torch,
                lambda text, p=page_path: self._notebook_prose(text, p),
            )
            path = notebooks.notebook_path(page_path)
            notebooks.write(notebook, directory / path)
            written.append(
                File(
                    path, src_dir=str(directory), dest_dir=config.site_dir, use_directory_urls=config.use_directory_urls
                )
            )
        return written

    def _check_source_links(self, files) -> list[str]:
        """Resolve every page's links before anything runs, so that all bad links are reported at once."""
        try:
            self.linker = SourceLinker(SourceTree(self.root))
        except SourceError as error:
            raise PluginError(str(error)) from error
        self.citations: list[Citation] = []
        self.titles: dict[str, str] = {}
        errors: list[str] = []
        for file in files.documentation_pages():
            shown = f"{self.docs_dir}/{file.src_uri}"
            markdown = self._versioned(read_text(Path(file.abs_src_path), shown), file.src_uri)
            self.titles[file.src_uri] = source_map.title_of(markdown, file.src_uri)
            try:
                links = self.linker.rewrite(markdown, file.src_uri)
            except FenceError as error:
                raise PluginError(f"{shown}:{error.line}: {error}") from error
            errors += links.errors
            self.citations += links.citations
            if file.src_uri not in self.config.sections_exempt:
                errors += [
                    f"docs/{file.src_uri}: section '{title}' has no source link"
                    for title in sections_without_links(markdown)
                ]
        if errors:
            return [f"{len(errors)} source link problem(s):\n" + "\n".join(errors)]
        return []

    def _check_prose(self, files) -> list[str]:
        """Quotes resolve against this edition's outputs; no typed number contradicts any edition's."""
        errors: list[str] = []
        releases = recorded_releases(self.root)
        for file in files.documentation_pages():
            markdown = Path(file.abs_src_path).read_text(encoding="utf-8")
            errors += self._quoted(self._versioned(markdown, file.src_uri, keep_lines=True), file.src_uri).errors
            errors += prose_guard.contradictions(self.root, file.src_uri, markdown, releases)
        if errors:
            return [f"{len(errors)} prose problem(s):\n" + "\n".join(errors)]
        return []

    def _notebook_prose(self, markdown: str, page: str) -> str:
        """A text cell: snippet includes expanded, source links as plain links at this tag."""
        expanded = expand_includes(markdown, self.root, f"{self.docs_dir}/{page}")
        return self.linker.rewrite(expanded, page, plain=True).markdown

    def _versioned(self, markdown: str, page: str, keep_lines: bool = False) -> str:
        """The Markdown of `page` as this edition (torch release and Python) shows it."""
        render = versioned_prose.render_keeping_lines if keep_lines else versioned_prose.render
        return render(markdown, self.release, self.python, where=f"{self.docs_dir}/{page}")

    def _quoted(self, markdown: str, page: str):
        return resolve_quotes(markdown, page, self._output_of)

    def _output_of(self, page: str, block_id: str) -> str | None:
        results = self.site.results.get(page, []) if self.site else []
        return next((r.output for r in results if r.block.id == block_id), None)

    @property
    def release(self) -> str:
        return self.linker.tree.identity.release

    @property
    def python(self) -> str:
        """The Python this build runs its pages with: the one running it."""
        return platform.python_version()

    @property
    def edition(self) -> str:
        """What one build's own files are kept under: its torch release and Python."""
        return f"{installed_torch().release}-py{python_minor(self.python)}"

    def on_page_markdown(self, markdown, *, page, config, files):
        if notebooks.is_notebook_page(page.file.src_uri):
            return markdown  # mkdocs-jupyter renders it from the notebook
        results = self.site.results.get(page.file.src_uri, []) if self.site else []
        changed = {}
        if results and files.get_file_from_path(what_changed.PAGE):
            changes_url = files.get_file_from_path(what_changed.PAGE).url_relative_to(page.file)
            page_changes = what_changed.changed_blocks(self.root, self.release, [self.site.page(page.file.src_uri)])
            changed = {
                block.index: (minor_version(self.release), f"{changes_url}#{anchor}")
                for block, anchor in page_changes.items()
            }
        colab = (
            notebooks.colab_url(config.repo_url, self.site.environment.torch, page.file.src_uri)
            if page.file.src_uri in self.chapters
            else None
        )
        recordings = Recordings(self.root, self.release, python=self.python)
        self.renderer = PageRenderer(
            page.file.src_uri,
            results,
            show_failures=self.serving,
            changed=changed,
            colab_url=colab,
            other_pythons={r.block.index: others for r in results if (others := recordings.other_pythons(r.block))},
        )
        if page.file.generated_by:
            return markdown
        markdown = self._versioned(markdown, page.file.src_uri)
        markdown = self._quoted(markdown, page.file.src_uri).markdown
        markdown = what_changed.what_changed_page(markdown, self.root, self.pages_in_reading_order, self.titles)
        if page.file.src_uri in self.chapters:
            notebook = files.get_file_from_path(notebooks.notebook_path(page.file.src_uri))
            markdown = _with_notebook_links(markdown, notebook.url_relative_to(page.file), colab)
        return self.linker.rewrite(markdown, page.file.src_uri).markdown

    def on_page_content(self, html, *, page, config, files):
        if page.file.src_uri == source_map.PAGE:
            page.meta["search"] = {"exclude": True}  # a table of what the chapters link: they are indexed
        if notebooks.is_notebook_page(page.file.src_uri):
            page.meta["search"] = {"exclude": True}  # the chapter page is indexed already
            html = notebooks.notebook_page_html(html)
            outside = notebooks.external_resources(html)
            if outside:
                raise PluginError(
                    f"{page.file.src_uri}: the rendered notebook would load from outside the site: {', '.join(outside)}"
                )
        missing = self.renderer.not_rendered() if self.renderer else []
        self.renderer = None
        if missing:
            raise PluginError(
                f"docs/{page.file.src_uri}: blocks found by the scan were not rendered: {', '.join(missing)}"
            )
        return html

    def _format_python(self, **options) -> str:
        if self.renderer is None:
            raise PluginError("a Python block was rendered outside a page the handbook scanned")
        return self.renderer.format_python(**options)

    def on_nav(self, nav, *, config, files):
        order = {page.file.src_uri: position for position, page in enumerate(nav.pages)}
        pages = self.site.pages if self.site else []
        self.pages_in_reading_order = sorted(pages, key=lambda p: order.get(p.path, len(order)))
        return nav

    def on_page_context(self, context, *, page, config, nav):
        if notebooks.is_notebook_page(page.file.src_uri):
            chapter = next(p for p in self.chapters if notebooks.notebook_path(p) == page.file.src_uri)
            page.meta["notebook_file"] = page.file.src_uri.rsplit("/", 1)[
                1
            ]  # mkdocs-jupyter copies it next to the page
            page.meta["colab_url"] = notebooks.colab_url(config.repo_url, self.site.environment.torch, chapter)
        elif not page.file.generated_by:
            page.meta["last_changed"] = last_changed(self.root, self.docs_dir, page.file.src_uri)
        return context

    def on_post_build(self, *, config):
        if not self.site:
            return
        write_report(self.site, Path(config.site_dir) / "execution-report.json", tree_digest(self.root))


def last_changed(root: Path, docs_dir: str, page: str) -> str | None:
    """The date of the last commit that touched a page, if the tree is a git checkout."""
    try:
        result = subprocess.run(
            ["git", "log", "-1", "--format=%cs", "--", f"{docs_dir}/{page}"],
            cwd=root,
            capture_output=True,
            text=True,
            timeout=10,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return result.stdout.strip() or None


def _with_notebook_links(markdown: str, notebook_url: str, colab: str | None) -> str:
    """Under the page's title: the chapter as a notebook page, its download, and Colab."""
    stem = notebook_url.rstrip("/").rsplit("/", 1)[-1]
    links = [
        f'<a href="{notebook_url}">Read this chapter as a notebook</a>',
        f'<a class="handbook-notebook" href="{notebook_url}{stem}.ipynb" download>Download it</a>',
    ]
    if colab:
        links.append(f'<a class="handbook-colab" href="{colab}">Open in Colab</a>')
    # Raw HTML: the notebook file is copied by mkdocs-jupyter, so mkdocs must not validate the link.
    block = '<p class="handbook-notebook-links">' + " · ".join(links) + "</p>"
    lines = markdown.splitlines()
    for index, line in enumerate(lines):
        if line.startswith("# "):
            lines.insert(index + 1, "\n" + block + "\n")
            return "\n".join(lines) + "\n"
    return block + "\n\n" + markdown
