"""The mkdocs plugin: glue between mkdocs' events and the handbook's modules."""

from __future__ import annotations

import logging
from pathlib import Path

import markdown_exec
from mkdocs.config import config_options
from mkdocs.config.base import Config
from mkdocs.exceptions import PluginError
from mkdocs.plugins import BasePlugin

from handbook import rendering
from handbook.blocks import BlockError
from handbook.execution import SiteRun, execute
from handbook.report import failure_report, write_report

log = logging.getLogger("mkdocs.plugins.handbook")


class HandbookConfig(Config):
    execute = config_options.Type(bool, default=True)


class HandbookPlugin(BasePlugin[HandbookConfig]):
    serving = False
    site: SiteRun | None = None

    def on_startup(self, *, command: str, dirty: bool) -> None:
        self.serving = command == "serve"

    def on_config(self, config):
        self.root = Path(config.config_file_path).resolve().parent
        self.docs_dir = Path(config.docs_dir).resolve().relative_to(self.root).as_posix()
        markdown_exec.formatters["python"] = rendering.format_python
        markdown_exec.formatters["py"] = rendering.format_python
        return config

    def on_files(self, files, *, config):
        try:
            self.site = execute(self.root, self.docs_dir)
        except BlockError as error:
            raise PluginError(str(error)) from error
        if not self.site.ok:
            message = failure_report(self.site)
            if not self.serving:
                raise PluginError(message)
            log.error(message)
        return files

    def on_page_markdown(self, markdown, *, page, config, files):
        results = self.site.results.get(page.file.src_uri, []) if self.site else []
        rendering.current = rendering.PageResults(page.file.src_uri, results, show_failures=self.serving)
        return markdown

    def on_page_content(self, html, *, page, config, files):
        current = rendering.current
        if current and len(current.taken) != len(current.results):
            missing = [r.block.label for i, r in enumerate(current.results) if i not in current.taken]
            raise PluginError(f"docs/{page.file.src_uri}: blocks found by the scan were not rendered: {', '.join(missing)}")
        rendering.current = None
        return html

    def on_post_build(self, *, config):
        if self.site:
            write_report(self.site, Path(config.site_dir) / "execution-report.json")
