"""Every environment switch of the build: the one list, with what each does (ARCHITECTURE.md, "Switches").

A switch is named only here, so that ARCHITECTURE.md's table, the modules and the tests cannot
disagree on a name, and read once, at the entry of a process or a command (`read()`: the command
line, the MkDocs plugin's `on_config`, a page process), into one frozen `Settings` value that is
passed down. A bad value is refused there, as bad input (`SettingError`).
"""

from __future__ import annotations

import dataclasses
import os
import re
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from handbook.errors import InputError

BLOCK_TIMEOUT = "DOCS_BLOCK_TIMEOUT"  # seconds: every block's default timeout
PAGE_MEMORY = "DOCS_PAGE_MEMORY"  # a size: the most memory one page's processes may hold
CACHE = "HANDBOOK_CACHE"  # 0: every page is executed, the execution cache unused
EXECUTE = "HANDBOOK_EXECUTE"  # 0: render-only, recordings shown, no block runs
CACHE_DIR = "HANDBOOK_CACHE_DIR"  # where the caches live
READ_ONLY_TREE = "HANDBOOK_READ_ONLY_TREE"  # 0: pages see the tree writable (the tree guard alone)
COMPILE_LOCK = "HANDBOOK_COMPILE_LOCK"  # the file C++ compiles take turns on ("": none)
# Read by mkdocs.yml and mkdocs.zh.yml (`!ENV`), set by the Makefile: the version selector's
# provider (mike's deployments set it) and each language's address (`make serve` and `make
# serve-zh` serve at the root of localhost; the language selector links to both).
VERSION_PROVIDER = "HANDBOOK_VERSION_PROVIDER"
SITE_URL = "HANDBOOK_SITE_URL"
SITE_URL_ZH = "HANDBOOK_SITE_URL_ZH"
# Set by the build itself, or by its tests:
PAGE_READ_ONLY = "HANDBOOK_PAGE_READ_ONLY"  # the caches pages see read-only (the pipeline sets it)
GOLDENS_KILL_AT = "HANDBOOK_GOLDENS_KILL_AT"  # tests: where a re-recording kills itself
# Tests: what a page may see beyond what every page does (a page inherits only the build's settings,
# and writes only its own directories): more variables (names, comma-separated) and directories (os.pathsep).
PAGE_VARIABLES = "HANDBOOK_PAGE_VARIABLES"
PAGE_WRITABLE = "HANDBOOK_PAGE_WRITABLE"


class SettingError(InputError):
    """A switch or fence option whose value cannot be used: bad input, reported as any other."""


def seconds(text: str, name: str) -> float:
    """A finite number of seconds above 0 (nan and inf would switch a timeout off)."""
    try:
        value = float(text)
    except ValueError:
        value = 0.0
    if not 0 < value < float("inf"):  # also false for nan
        raise SettingError(f"{name}={text!r} is not a number of seconds (finite, above 0)")
    return value


SIZE = re.compile(r"(\d+(?:\.\d+)?)\s*([KMGT])(?:i?B)?", re.IGNORECASE)


def parse_size(text: str, name: str) -> int:
    """`512M`, `2G`, `1.5GiB` -> bytes (powers of 1024)."""
    match = SIZE.fullmatch(text.strip())
    size = int(float(match[1]) * 1024 ** ("KMGT".index(match[2].upper()) + 1)) if match else 0
    if size <= 0:
        raise SettingError(f"{name}={text!r} is not a size such as 512M or 2G (above 0)")
    return size


def _text(text: str | None, name: str) -> str | None:
    return text


def _on(text: str | None, name: str) -> bool:
    """On by default: off only when set to 0."""
    return text != "0"


def _seconds(text: str | None, name: str) -> float | None:
    return seconds(text, name) if text else None


def _size(text: str | None, name: str) -> int | None:
    return parse_size(text, name) if text else None


def _paths(text: str | None, name: str) -> tuple[str, ...]:
    return tuple(path for path in (text or "").split(os.pathsep) if path)


def _names(text: str | None, name: str) -> tuple[str, ...]:
    return tuple(filter(None, (text or "").split(",")))


def _directory(text: str | None, name: str) -> Path | None:
    return Path(text) if text else None


@dataclasses.dataclass(frozen=True)
class Switch:
    """One switch: its name, how its setting is read, and its roles."""

    name: str
    parse: Callable[[str | None, str], Any]
    documented: bool = False  # a user sets it: a row of ARCHITECTURE.md's table, in this order
    limit: bool = False  # it changes what a page's run ends in (a timeout, a memory limit, what it may write or see)

    @property
    def field(self) -> str:
        """Its field of `Settings`: the name without its prefix, in lower case."""
        return self.name.split("_", 1)[1].lower()


SWITCHES = (
    Switch(BLOCK_TIMEOUT, _seconds, documented=True, limit=True),
    Switch(PAGE_MEMORY, _size, documented=True, limit=True),
    Switch(CACHE, _on, documented=True),
    Switch(EXECUTE, _on, documented=True),
    Switch(CACHE_DIR, _directory, documented=True),
    Switch(READ_ONLY_TREE, _on, documented=True, limit=True),
    Switch(COMPILE_LOCK, _text, documented=True),
    Switch(VERSION_PROVIDER, _text),
    Switch(SITE_URL, _text),
    Switch(SITE_URL_ZH, _text),
    Switch(PAGE_READ_ONLY, _paths),
    Switch(GOLDENS_KILL_AT, _text),
    Switch(PAGE_VARIABLES, _names, limit=True),
    Switch(PAGE_WRITABLE, _paths, limit=True),
)
# Every switch, each a setting a page may inherit (none holds a secret).
ALL = tuple(switch.name for switch in SWITCHES)
# The switches a user sets, in the order of ARCHITECTURE.md's table.
DOCUMENTED = tuple(switch.name for switch in SWITCHES if switch.documented)
# The switches that change what a page's run ends in: part of the run record's key.
LIMITS = tuple(switch.name for switch in SWITCHES if switch.limit)


@dataclasses.dataclass(frozen=True)
class Settings:
    """Every switch's setting, parsed once (a field per switch, in `SWITCHES`' order; None or () when unset)."""

    block_timeout: float | None = None  # seconds; None: the engine's default
    page_memory: int | None = None  # bytes; None: a share of the memory available
    cache: bool = True
    execute: bool = True
    cache_dir: Path | None = None  # None: below the repository root
    read_only_tree: bool = True
    compile_lock: str | None = None
    version_provider: str | None = None
    site_url: str | None = None
    site_url_zh: str | None = None
    page_read_only: tuple[str, ...] = ()
    goldens_kill_at: str | None = None
    page_variables: tuple[str, ...] = ()
    page_writable: tuple[str, ...] = ()

    def limits(self) -> dict[str, Any]:
        """The settings of the switches that change a page's run, by name (what the run record is keyed on)."""
        return {switch.name: getattr(self, switch.field) for switch in SWITCHES if switch.limit}


def read(environ: Mapping[str, str] | None = None) -> Settings:
    """Every switch as the environment sets it (an empty setting is no setting); a bad value raises
    `SettingError`, naming the switch."""
    environ = os.environ if environ is None else environ
    return Settings(
        **{switch.field: switch.parse(environ.get(switch.name) or None, switch.name) for switch in SWITCHES}
    )
