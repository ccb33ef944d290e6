"""The command line's reading of a site's configuration: MkDocs' own loader, as `mkdocs build` reads it.

Part of the MkDocs adapter (it imports MkDocs); the commands import it when they need a
configuration, so that `python -m handbook` itself loads no site generator.
"""

from __future__ import annotations

import logging
from pathlib import Path

from mkdocs.config import load_config
from mkdocs.exceptions import ConfigurationError

from handbook.errors import InputError
from handbook.site_config import SiteConfig


def load_site_config(config_file: Path) -> SiteConfig:
    """`config_file` (an `mkdocs.yml`, `INHERIT` and `!ENV` included) as MkDocs validates it."""
    logging.getLogger("mkdocs").setLevel(logging.ERROR)  # its INFO lines are a build's, not a command's
    try:
        config = load_config(str(config_file))
    except ConfigurationError as error:
        raise InputError(f"{config_file.name}: {error}") from error
    return SiteConfig.from_mkdocs(config, config_file.resolve().parent)
