"""Every environment switch of the build: the one list, with what each does (ARCHITECTURE.md, "Switches").

A switch is read where it acts, but named only here, so that ARCHITECTURE.md's table, the
modules and the tests cannot disagree on a name. `value(name)` is the setting, or None.
"""

from __future__ import annotations

import os

BLOCK_TIMEOUT = "DOCS_BLOCK_TIMEOUT"  # seconds: every block's default timeout
PAGE_MEMORY = "DOCS_PAGE_MEMORY"  # a size: the most memory one page's processes may hold
CACHE = "HANDBOOK_CACHE"  # 0: every page is executed, the execution cache unused
EXECUTE = "HANDBOOK_EXECUTE"  # 0: render-only, recordings shown, no block runs
CACHE_DIR = "HANDBOOK_CACHE_DIR"  # where the caches live
READ_ONLY_TREE = "HANDBOOK_READ_ONLY_TREE"  # 0: pages see the tree writable (the tree guard alone)
COMPILE_LOCK = "HANDBOOK_COMPILE_LOCK"  # the file C++ compiles take turns on ("": none)
# The caches the pipeline sets for every page: torch's compile caches and matplotlib's font cache,
# kept writable for pages that see the rest of the caches read-only, and out of the execution cache's key.
PAGE_CACHES = ("TORCHINDUCTOR_CACHE_DIR", "TORCH_EXTENSIONS_DIR", "MPLCONFIGDIR")
# Read by mkdocs.yml (`!ENV`): the version selector's provider (mike's deployments set it) and
# the site's address (`make serve` serves at the root of localhost).
VERSION_PROVIDER = "HANDBOOK_VERSION_PROVIDER"
SITE_URL = "HANDBOOK_SITE_URL"
# Set by the build itself, or by its tests:
PAGE_READ_ONLY = "HANDBOOK_PAGE_READ_ONLY"  # the caches pages see read-only (the pipeline sets it)
GOLDENS_KILL_AT = "HANDBOOK_GOLDENS_KILL_AT"  # tests: where a re-recording kills itself
# Tests: what a page may see beyond what every page does (a page inherits only the build's settings,
# and writes only its own directories): more variables (names, comma-separated) and directories (os.pathsep).
PAGE_VARIABLES = "HANDBOOK_PAGE_VARIABLES"
PAGE_WRITABLE = "HANDBOOK_PAGE_WRITABLE"

# The switches that change what a page's run ends in (a timeout, a memory limit, what it may write or see).
LIMITS = (BLOCK_TIMEOUT, PAGE_MEMORY, READ_ONLY_TREE, PAGE_VARIABLES, PAGE_WRITABLE)
# The switches a user sets, in the order of ARCHITECTURE.md's table.
DOCUMENTED = (BLOCK_TIMEOUT, PAGE_MEMORY, CACHE, EXECUTE, CACHE_DIR, READ_ONLY_TREE, COMPILE_LOCK)


# Every switch above, each a setting a page may inherit (none holds a secret).
ALL = (
    BLOCK_TIMEOUT, PAGE_MEMORY, CACHE, EXECUTE, CACHE_DIR, READ_ONLY_TREE, COMPILE_LOCK, *PAGE_CACHES,
    VERSION_PROVIDER, SITE_URL, PAGE_READ_ONLY, GOLDENS_KILL_AT, PAGE_VARIABLES, PAGE_WRITABLE,
)  # fmt: skip


def value(name: str) -> str | None:
    """The switch's setting; None when it is unset or empty."""
    return os.environ.get(name) or None


def off(name: str) -> bool:
    """Whether an on-by-default switch is set to 0."""
    return os.environ.get(name) == "0"
