"""A rebuild under `mkdocs serve --dirty` (`make serve`): only the pages whose inputs changed.

MkDocs' dirty build renders a page again when its source file is newer than the HTML built
from it, and Material's search keeps the previous build's index for the pages it skips. Two
things that rule does not see, this module adds: a page whose Markdown is unchanged but whose
inputs changed (a snippet it includes, an output it shows or quotes; `Edition.render_inputs`)
is made to look stale, and the search index is merged for every page rendered again, where
Material's own merge assumes one.
"""

from __future__ import annotations

import logging
import os

from mkdocs.structure.files import Files

DIRTY_WARNING = "A 'dirty' build is being performed"


def changed(before: dict[str, str], after: dict[str, str]) -> set[str]:
    """The pages whose inputs differ between two builds (every page, on the first)."""
    return {page for page, inputs in after.items() if before.get(page) != inputs}


def render_again(files: Files, pages: set[str]) -> None:
    """Make MkDocs' dirty build render these pages again: their built HTML is dated before their
    source (`File.is_modified`), as if the source had just been saved."""
    for page in pages:
        file = files.get_file_from_path(page)
        if file is not None and os.path.isfile(file.abs_dest_path):
            os.utime(file.abs_dest_path, (0, 0))


def merge_search_index(plugins, rendered: set[str]) -> None:
    """The search index of a dirty build: the previous build's entries for every page not rendered
    again, then this build's. Material merges only the first page rendered, which leaves a page
    rendered on every build (a generated one) indexed once more each time; done here, Material
    has nothing left to merge."""
    search = next((plugin for name, plugin in plugins.items() if name.endswith("search")), None)
    previous = getattr(search, "search_index_prev", None)
    if previous is None:
        return
    kept = [entry for entry in previous.entries if entry["location"].split("#", 1)[0] not in rendered]
    search.search_index.entries[:0] = kept
    search.search_index_prev = None


class _DirtyWarning(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        return not record.getMessage().startswith(DIRTY_WARNING)


def quiet_dirty_warning() -> None:
    """MkDocs warns on each dirty build that navigation may be stale; here every page shares the
    navigation's inputs (`Edition.render_inputs`), so a change to it renders every page again."""
    logging.getLogger("mkdocs.commands.build").addFilter(_DirtyWarning())
