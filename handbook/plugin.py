"""The mkdocs plugin: glue between mkdocs' events and the handbook's modules."""

from __future__ import annotations

import logging
import subprocess
from datetime import datetime, timezone
from pathlib import Path

import markdown_exec
from mkdocs.config import config_options
from mkdocs.config.base import Config
from mkdocs.exceptions import PluginError
from mkdocs.plugins import BasePlugin

from mkdocs.structure.files import File

from handbook import notebooks, rendering, site_report, source_map, versioned_prose, what_changed
from handbook.blocks import BlockError
from handbook.execution import SiteRun, execute
from handbook.report import failure_report, killed_processes, write_report
from handbook.runner import SettingError
from handbook.source_links import Citation, SourceLinker, sections_without_links
from handbook.sources import SourceError, SourceTree

log = logging.getLogger("mkdocs.plugins.handbook")


class HandbookConfig(Config):
    # Pages whose `##` sections need no source link (the home page, say).
    sections_exempt = config_options.ListOfItems(config_options.Type(str), default=[])


class HandbookPlugin(BasePlugin[HandbookConfig]):
    serving = False
    site: SiteRun | None = None

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
        markdown_exec.formatters["python"] = rendering.format_python
        markdown_exec.formatters["py"] = rendering.format_python
        return config

    def on_files(self, files, *, config):
        problems = self._check_source_links(files)
        try:
            self.site = execute(self.root, self.docs_dir)
        except (BlockError, SettingError) as error:
            raise PluginError(str(error)) from error
        executed = self.site.executed_pages
        log.info(f"executed {len(executed)} page(s) in {self.site.seconds:.1f} s{': ' + ', '.join(executed) if executed else ''}; the others came from the cache")
        for line in killed_processes(self.site):
            log.info(line)
        if not self.site.ok:
            problems.append(failure_report(self.site))
        config.extra["handbook"] = {key: self.site.environment[key] for key in ("torch", "git_version", "python", "device")}
        config.extra["handbook"]["date"] = datetime.now(timezone.utc).date().isoformat()
        if problems:
            message = "\n\n".join(problems)
            if not self.serving:
                raise PluginError(message)
            log.error(message)
        files.append(File.generated(config, source_map.PAGE, content=source_map.render(self.citations, self.titles, self.linker.tree.identity.tag)))
        files.append(File.generated(config, site_report.PAGE, content=site_report.render(self.site, self.titles)))
        return files

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
            markdown = versioned_prose.render(Path(file.abs_src_path).read_text(encoding="utf-8"), self.linker.tree.identity.release)
            self.titles[file.src_uri] = source_map.title_of(markdown, file.src_uri)
            links = self.linker.rewrite(markdown, file.src_uri)
            errors += links.errors
            self.citations += links.citations
            if file.src_uri not in self.config.sections_exempt:
                errors += [f"docs/{file.src_uri}: section '{title}' has no source link" for title in sections_without_links(markdown)]
        if errors:
            return [f"{len(errors)} source link problem(s):\n" + "\n".join(errors)]
        return []

    def on_page_markdown(self, markdown, *, page, config, files):
        results = self.site.results.get(page.file.src_uri, []) if self.site else []
        rendering.current = rendering.PageResults(page.file.src_uri, results, show_failures=self.serving)
        if page.file.generated_by:
            return markdown
        markdown = versioned_prose.render(markdown, self.linker.tree.identity.release)
        markdown = what_changed.render(markdown, self.root, self.titles)
        if results and page.file.src_uri not in self.config.sections_exempt:
            depth = page.url.count("/")
            markdown = _with_download_link(markdown, "../" * depth + notebook_path(page.file.src_uri))
        return self.linker.rewrite(markdown, page.file.src_uri).markdown

    def on_page_content(self, html, *, page, config, files):
        current = rendering.current
        if current and len(current.taken) != len(current.results):
            missing = [r.block.label for i, r in enumerate(current.results) if i not in current.taken]
            raise PluginError(f"docs/{page.file.src_uri}: blocks found by the scan were not rendered: {', '.join(missing)}")
        rendering.current = None
        return html

    def on_page_context(self, context, *, page, config, nav):
        if not page.file.generated_by:
            page.meta["last_changed"] = last_changed(self.root, self.docs_dir, page.file.src_uri)
        return context

    def on_post_build(self, *, config):
        if not self.site:
            return
        write_report(self.site, Path(config.site_dir) / "execution-report.json")
        for page in self.site.pages:
            if page.path not in self.site.results or not page.blocks:
                continue
            markdown = (self.root / self.docs_dir / page.path).read_text(encoding="utf-8")
            outputs = {r.block.id: r.output for r in self.site.results[page.path]}
            notebook = notebooks.page_notebook(markdown, page, outputs, lambda text: self.linker.rewrite(text, page.path, plain=True).markdown)
            notebooks.write(notebook, Path(config.site_dir) / notebook_path(page.path))


def last_changed(root: Path, docs_dir: str, page: str) -> str | None:
    """The date of the last commit that touched a page, if the tree is a git checkout."""
    try:
        result = subprocess.run(["git", "log", "-1", "--format=%cs", "--", f"{docs_dir}/{page}"], cwd=root, capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.SubprocessError):
        return None
    return result.stdout.strip() or None


def notebook_path(page: str) -> str:
    return "notebooks/" + page.removesuffix(".md").replace("/", "-") + ".ipynb"


def _with_download_link(markdown: str, href: str) -> str:
    """Put a notebook download link under the page's title."""
    # Raw HTML: the notebook is written after the build, so mkdocs must not validate this link.
    link = f'<a class="handbook-notebook" href="{href}" download>Download this chapter as a Jupyter notebook</a>'
    lines = markdown.splitlines()
    for index, line in enumerate(lines):
        if line.startswith("# "):
            lines.insert(index + 1, "\n" + link + "\n")
            return "\n".join(lines) + "\n"
    return link + "\n\n" + markdown
