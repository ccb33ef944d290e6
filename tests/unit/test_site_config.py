"""`SiteConfig`: made once from MkDocs' validated configuration, by the plugin and by the command line."""

from __future__ import annotations

import re
from pathlib import Path

import markdown_exec
import pytest

from handbook import languages
from handbook.errors import InputError
from handbook.mkdocs_config import load_site_config
from handbook.plugin import HandbookPlugin

REPO = Path(__file__).resolve().parents[2]

CONFIG = """
site_name: t
docs_dir: {docs_dir}
site_url: !ENV [HANDBOOK_TEST_URL, "https://example.org/h/"]
nav:
  - Home: index.md
  - Part:
      - A page: part/a.md
plugins:
  - handbook:
      sections_exempt: [index.md]
"""


def site(tmp_path: Path, docs_dir: str = "docs") -> Path:
    (tmp_path / "docs" / "part").mkdir(parents=True)
    (tmp_path / "mkdocs.yml").write_text(CONFIG.format(docs_dir=docs_dir))
    return tmp_path / "mkdocs.yml"


def test_the_navigation_and_the_plugins_options_as_mkdocs_validated_them(tmp_path):
    config = load_site_config(site(tmp_path))
    assert config.docs_dir == "docs" and config.language == "en" and config.site_url == "https://example.org/h/"
    assert config.titles == {"index.md": "Home", "part/a.md": "A page"}
    assert config.sections_exempt == {"index.md"} and config.translates is None and config.blocks_dir == "docs"


def test_a_docs_dir_outside_the_repository_is_refused(tmp_path):
    outside = tmp_path / "elsewhere"
    (outside / "docs" / "part").mkdir(parents=True)
    config = site(tmp_path / "repo")
    config.write_text(CONFIG.format(docs_dir=outside / "docs"))
    with pytest.raises(InputError, match=r"mkdocs.yml: docs_dir"):
        load_site_config(config)


@pytest.mark.parametrize(
    "setting, said",
    [
        ("docs_dir: /etc", "mkdocs.yml: docs_dir '/etc' is outside the repository"),
        ("plugins:\n  - handbook:\n      translates: ../../docs", "translates '../../docs' is outside the repository"),
        ("theme:\n  name: mkdocs\n  custom_dir: /usr", "theme.custom_dir '/usr' is outside the repository"),
    ],
)
def test_pages_and_templates_outside_the_repository_are_refused(tmp_path, setting, said):
    (tmp_path / "docs").mkdir()
    (tmp_path / "mkdocs.yml").write_text(f"site_name: x\n{setting}\n")
    with pytest.raises(InputError, match=re.escape(said)):
        load_site_config(tmp_path / "mkdocs.yml")


def test_the_plugin_reads_the_served_address_and_gives_markdown_exec_its_formatters_back(tmp_path, monkeypatch):
    """Under `mkdocs serve`, MkDocs sets site_url to the served address after loading the file: the plugin
    reads the configuration MkDocs hands it, so its notebooks link there (a second YAML reader could not)."""
    from mkdocs.config import load_config

    config = load_config(str(site(tmp_path)))
    config.site_url = "http://127.0.0.1:8000/"  # what `mkdocs serve` does before the build
    before = dict(markdown_exec.formatters)
    plugin = HandbookPlugin()
    plugin.on_config(config)
    assert plugin.site_config.site_url == "http://127.0.0.1:8000/"
    assert markdown_exec.formatters["python"] == plugin._format_python
    plugin.on_shutdown()
    assert markdown_exec.formatters == before


SNIPPETS = "markdown_extensions:\n  - pymdownx.snippets{options}\n"


@pytest.mark.parametrize(
    "options, said",
    [
        (":\n      check_paths: true\n      dedent_subsections: false", "dedent_subsections is False"),
        ("", "check_paths is False"),  # snippets' defaults: a missing file shown as nothing
        (":\n      check_paths: true\n      dedent_subsections: true\n      auto_append: [a.md]", "auto_append"),
        (":\n      base_path: [snippets]\n      check_paths: true\n      dedent_subsections: true", "base_path"),
    ],
)
def test_snippets_options_other_than_the_scans_are_refused(tmp_path, options, said):
    """The scan reads a block's includes as pymdownx.snippets does with the scan's options
    (blocks.SNIPPETS): configured otherwise, a page would show other code than its block runs."""
    config = site(tmp_path)
    config.write_text(config.read_text() + SNIPPETS.format(options=options))
    with pytest.raises(InputError, match=rf"mkdocs.yml: pymdownx.snippets: .*{re.escape(said)}"):
        load_site_config(config)


def test_the_sites_own_configurations_and_the_tests_read_includes_as_the_scan_does(tmp_path):
    from conftest import PROJECT_CONFIG

    for name in languages.CONFIGS:
        load_site_config(Path(__file__).resolve().parents[2] / name)
    (tmp_path / "docs").mkdir()
    (tmp_path / "mkdocs.yml").write_text(PROJECT_CONFIG)
    load_site_config(tmp_path / "mkdocs.yml")


def test_the_plugins_absolute_base_path_is_the_scans(tmp_path):
    """The plugin makes base_path the repository's root, for MkDocs run from elsewhere."""
    from mkdocs.config import load_config

    config = site(tmp_path)
    options = ":\n      base_path: [.]\n      check_paths: true\n      dedent_subsections: true"
    config.write_text(config.read_text() + SNIPPETS.format(options=options))
    plugin = HandbookPlugin()
    plugin.on_config(load_config(str(config)))
    plugin.on_shutdown()
    assert plugin.site_config.docs_dir == "docs"


def test_the_sites_configuration_is_read_as_mkdocs_validates_it():
    config = load_site_config(REPO / "mkdocs.yml")  # it holds !ENV and !!python/name: tags
    assert config.docs_dir == "docs"
    assert config.titles["tensors.md"] == "Tensors and storage"
    assert list(config.titles)[:2] == ["index.md", "setup.md"]  # the reading order
    assert config.sections_exempt == {"index.md", "what-changed.md", "glossary.md"}
    chinese = load_site_config(REPO / "mkdocs.zh.yml")  # INHERIT: mkdocs.yml, merged by MkDocs itself
    assert (chinese.docs_dir, chinese.language, chinese.translates, chinese.blocks_dir) == (
        "docs-zh",
        "zh",
        "docs",
        "docs",
    )
    assert chinese.repo_url == config.repo_url and list(chinese.titles) == list(config.titles)
    assert config.repo_url == "https://github.com/pytorch-internals-executed/handbook"  # where blocks link
