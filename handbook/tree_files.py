"""The repository's own files, as the build reads and writes them: inside the tree, never through a link.

A page is code from a pull request (DESIGN.md, "Safe to build"). An include, a
recording or a block id that leads outside the repository would run, publish or
overwrite a file that is not the project's; a symbolic link is the same escape by
another road. Every path the build takes from a page is resolved here, and the
directories a build publishes, runs and writes (`LINK_FREE`) may hold no links at all.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from handbook import languages
from handbook.errors import InputError

# Where the pages whose blocks run are, unless a site's configuration says otherwise.
DOCS_DIR = languages.LANGUAGES[0].docs_dir
# What a build publishes (each language's pages, the theme's overrides/), runs (snippets/, and
# labs/ with its translation labs-zh/, published too) and writes (recordings/).
LINK_FREE = (*languages.DOCS_DIRS, *languages.LABS_DIRS, "overrides", "snippets", "recordings")


class TreeError(InputError):
    """A file of the tree that cannot be used: the message names the file and why."""


def confined(root: Path, relative: str, what: str) -> Path:
    """`root/relative`, refused where it leads outside `root` or passes through a symbolic link.
    `what` names the asker in the error ("docs/a.md:3: included file")."""
    base = root.resolve()
    path = base / relative
    outside = f"{what} {relative!r} is outside the repository; only files of the repository may be used"
    if Path(relative).is_absolute():
        raise TreeError(outside)
    step = base
    for part in Path(relative).parts:
        step = step / part
        if step.is_symlink():
            raise TreeError(f"{what} {relative!r}: {_shown(step, base)} is a symbolic link; {LINKS_REFUSED}")
    if not path.resolve().is_relative_to(base):
        raise TreeError(outside)
    return path


def confined_path(root: Path, path: Path, what: str) -> Path:
    """`confined` for a path already joined to `root`."""
    absolute = Path(os.path.abspath(path))
    for base in (Path(os.path.abspath(root)), root.resolve()):
        if absolute.is_relative_to(base):
            return confined(root, absolute.relative_to(base).as_posix(), what)
    return confined(root, absolute.as_posix(), what)


def read_text(path: Path, shown: str) -> str:
    """A text file of the tree (UTF-8), or a TreeError naming it as `shown`."""
    try:
        return path.read_text(encoding="utf-8")
    except UnicodeDecodeError as error:
        raise TreeError(
            f"{shown}: not UTF-8 text (byte {error.object[error.start]:#04x} at offset {error.start}); "
            "the handbook's files are UTF-8"
        ) from error
    except IsADirectoryError as error:
        raise TreeError(f"{shown}: a directory where a file should be") from error
    except OSError as error:
        raise TreeError(f"{shown}: cannot be read ({error.strerror})") from error


def links_in(root: Path, also: tuple[str, ...] = ()) -> list[str]:
    """Every symbolic link under the `LINK_FREE` directories (and `also`), repository-relative."""
    base = root.resolve()
    found = []
    for name in dict.fromkeys([*LINK_FREE, *also]):
        top = base / name
        if top.is_symlink():
            found.append(name)
            continue
        for directory, subdirectories, files in os.walk(top):
            for entry in subdirectories + files:
                if (Path(directory) / entry).is_symlink():
                    found.append(_shown(Path(directory) / entry, base))
    return sorted(found)


def refuse_links(root: Path, also: tuple[str, ...] = ()) -> None:
    """Raise a TreeError naming every symbolic link where none may be (`also`: a docs_dir of another name)."""
    links = links_in(root, also)
    if links:
        raise TreeError(f"symbolic link(s) in the repository: {', '.join(links)}; {LINKS_REFUSED}")


LINKS_REFUSED = (
    f"links are refused under {', '.join(d + '/' for d in LINK_FREE)} (a link could publish, run or overwrite "
    "a file outside the repository): put the file itself there"
)


def _shown(path: Path, base: Path) -> str:
    return path.relative_to(base).as_posix()


def write_if_changed(path: Path, text: str) -> bool:
    """`write_atomically`, unless the file holds `text` already: an unchanged file keeps its time,
    by which `mkdocs serve --dirty` tells that what was built from it is current. True if written."""
    try:
        if path.read_text(encoding="utf-8") == text:
            return False
    except (OSError, UnicodeDecodeError):
        pass
    write_atomically(path, text)
    return True


def write_atomically(path: Path, text: str) -> None:
    """Write `path` whole or not at all: readers, in this build or a concurrent one, see the old
    file or the new one, never a part; a build killed half-way leaves no partial file. The one
    way the build writes its files (recordings, runs, notebooks, symbol answers, timings)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, temporary = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as file:
            file.write(text)
        os.replace(temporary, path)
    except BaseException:
        os.unlink(temporary)
        raise
