"""What the execute step reads of a site's configuration: one value, made once from MkDocs' own.

MkDocs reads `mkdocs.yml` (its `!ENV` tags, its `INHERIT`, its validation), and so does this
project, through it: the plugin hands over the configuration MkDocs validated (under
`mkdocs serve`, with the served address as `site_url`), and the command line loads it with
MkDocs' loader (`handbook.mkdocs_config`). `SiteConfig.from_mkdocs` reads that object's
attributes only, so nothing here imports MkDocs.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from handbook import languages
from handbook.errors import InputError
from handbook.execution.blocks import snippets_disagreements
from handbook.tree_files import DOCS_DIR, confined


@dataclass(frozen=True)
class SiteConfig:
    """The pages, in reading order, by title, and where and in which language the site is published."""

    docs_dir: str = DOCS_DIR  # repository-relative
    nav: tuple[tuple[str, str], ...] = ()  # (page path, title), in the navigation's order
    sections_exempt: frozenset[str] = frozenset()  # pages whose `##` sections need no source link
    site_url: str | None = None  # where the site is published (the notebooks' links point there)
    repo_url: str | None = None  # the handbook's own repository, where each block's `file:line` links
    language: str = languages.DEFAULT  # the theme's language: the site's, and its pages'
    translates: str | None = None  # a translation's: the docs_dir of the pages it translates (their blocks run)

    @property
    def blocks_dir(self) -> str:
        """Where the pages whose blocks run are: a translation shows its original's results."""
        return self.translates or self.docs_dir

    @property
    def titles(self) -> dict[str, str]:
        """Page path -> its title in the navigation, in the navigation's order."""
        return dict(self.nav)

    @classmethod
    def from_mkdocs(cls, config, root: Path) -> SiteConfig:
        """From MkDocs' validated configuration of the site whose repository is `root`. Its directories
        must be the repository's own: a page from elsewhere would run and be published."""
        name = Path(config.config_file_path or languages.CONFIGS[0]).name
        plugin = config.plugins.get("handbook") if config.plugins else None
        options = plugin.config if plugin is not None else None
        translates = options.translates if options is not None else None
        for what, directory in (
            ("docs_dir", config.docs_dir),
            ("the handbook plugin's translates", translates),
            ("theme.custom_dir", config.theme.custom_dir),
        ):
            if directory is not None:
                confined(root, _relative(directory, root), f"{name}: {what}")
        _check_snippets(config, root, name)
        repo_url = config.repo_url
        return cls(
            docs_dir=_relative(config.docs_dir, root),
            nav=tuple(_pages(config.nav)),
            sections_exempt=frozenset(options.sections_exempt if options is not None else ()),
            site_url=config.site_url or None,
            repo_url=repo_url if isinstance(repo_url, str) and repo_url.startswith("https://") else None,
            language=(config.theme["language"] if "language" in config.theme else None) or languages.DEFAULT,
            translates=_relative(translates, root) if translates is not None else None,
        )


def _check_snippets(config, root: Path, name: str) -> None:
    """The site's pages include files as the scan reads them (`blocks.SNIPPETS`), where they use pymdownx.snippets."""
    if "pymdownx.snippets" not in (config.markdown_extensions or []):
        return
    if problems := snippets_disagreements(config.mdx_configs.get("pymdownx.snippets") or {}, root):
        raise InputError(
            f"{name}: pymdownx.snippets: {'; '.join(problems)}: a page would show other code than its block runs "
            "(handbook/execution/blocks.py, SNIPPETS)"
        )


def _relative(directory: str, root: Path) -> str:
    """A configured directory as a path under `root` (MkDocs makes docs_dir absolute); as given where it
    is not under it, for `confined` to refuse."""
    path = Path(directory)
    if not path.is_absolute():
        return path.as_posix()
    try:
        return path.resolve().relative_to(root.resolve()).as_posix()
    except ValueError:
        return str(path)


def _pages(items) -> list[tuple[str, str]]:
    """The navigation's pages, depth first: (path, title)."""
    found = []
    for item in items or []:
        for title, target in item.items() if isinstance(item, dict) else [(None, item)]:
            if isinstance(target, list):
                found += _pages(target)
            elif isinstance(target, str) and target.endswith(".md"):
                found.append((target, title or target))
    return found
