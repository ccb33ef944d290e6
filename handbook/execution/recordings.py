"""Recorded outputs: plain text under version control, one file per block, per torch release.

`recordings/torch-<release>/<page>/<block id>.txt` holds a CPU block's output, and
`<block id>.svg` beside it the figure of a block that draws one (`figure=` on its fence).
A GPU-only block's recording, `<block id>.cuda.txt`, starts with its provenance
(device, torch, date) above a separator line.

Outputs are recorded with one Python (`RECORDED_PYTHON`) on one platform
(`RECORDED_PLATFORM`). Where another supported Python prints differently, its output is
recorded in that Python's overlay, `recordings/torch-<release>/python-<minor>/<page>/<block
id>.txt`, which its builds read before the shared file; an output that is the same stays
recorded once. Another platform's overlay, `platform-<name>/` (`platform-macos-arm64/`),
works the same way and is read before both.

Measured values (`handbook.execution.measurements`) are compared masked everywhere here:
re-recording a block whose only change is a measured value leaves its file as it was.

A release's recordings change as a whole (see `staged`): a re-recording killed at
any moment leaves them as they were or fully updated.
"""

from __future__ import annotations

import contextlib
import ctypes
import difflib
import os
import re
import shutil
import signal
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from handbook.environment import (
    RECORDED_PLATFORM,
    RECORDED_PYTHON,
    SUPPORTED_PYTHONS,
    python_minor,
    release_order,
)
from handbook.execution.blocks import Block, Page, page_of_folder, recorded_folder
from handbook.execution.measurements import masked
from handbook.tree_files import TreeError, confined_path, links_in, read_text, write_atomically

PROVENANCE_END = "--- output ---"
FIGURE_SUFFIX = ".svg"
ANCHORS = "source-anchors.tsv"  # every source link's lines, recorded beside the outputs
OVERLAY_PREFIX = "python-"  # python-3.13/: what Python 3.13 prints differently
PLATFORM_PREFIX = "platform-"  # platform-linux-aarch64/: what that platform prints differently
PLATFORM_MARK = "platform"  # in a platform's overlay: that its outputs were recorded
OVERLAY_MARK = "python-version"  # in an overlay: the Python it was recorded with, e.g. 3.13.0


@dataclass(frozen=True)
class GpuRecording:
    device: str
    torch: str
    date: str
    output: str


# A drift report stays readable, and quick to make, however long the outputs are.
DIFF_CONTEXT = 3
DIFF_MAX_LINES = 100  # differing lines compared per side
DIFF_LINE_CHARS = 300  # characters shown of one line
HUNK = re.compile(r"^@@ -(\d+)(,\d+)? \+(\d+)(,\d+)? @@$")


def _common_head(before: list[str], after: list[str]) -> int:
    count = 0
    for old, new in zip(before, after, strict=False):
        if old != new:
            break
        count += 1
    return count


def _first_difference(old: str, new: str) -> int:
    """The first column where two lines differ, found by halving (linear, not per character in Python)."""
    low, high = 0, min(len(old), len(new))
    while low < high:
        middle = (low + high + 1) // 2
        if old[:middle] == new[:middle]:
            low = middle
        else:
            high = middle - 1
    return low


def _shown(line: str, start: int) -> str:
    """One diff line cut to DIFF_LINE_CHARS characters from column `start` (its +/-/space kept)."""
    body = line[1:]
    if len(body) <= DIFF_LINE_CHARS:
        return line
    start = min(start, max(0, len(body) - DIFF_LINE_CHARS))
    before = f"[{start:,} characters]…" if start else ""
    after = f"…[{len(body) - start - DIFF_LINE_CHARS:,} more characters]" if start + DIFF_LINE_CHARS < len(body) else ""
    return f"{line[0]}{before}{body[start : start + DIFF_LINE_CHARS]}{after}"


def unified_diff(recorded: str, printed: str, name: str, labels: tuple[str, str] | None = None) -> str:
    """A unified diff of two outputs, cut to a readable size, in time linear in their length.

    Only a bounded stretch from the first differing line on goes through difflib (whose
    matching is quadratic), and long lines are shown around the column where the outputs
    first differ."""
    before, after = recorded.splitlines(), printed.splitlines()
    head = _common_head(before, after)
    tail = _common_head(before[head:][::-1], after[head:][::-1])
    start = max(0, head - DIFF_CONTEXT)
    old = before[start : len(before) - max(0, tail - DIFF_CONTEXT)]
    new = after[start : len(after) - max(0, tail - DIFF_CONTEXT)]
    notes = []
    differing = max(len(old), len(new)) - (head - start)
    if differing > DIFF_MAX_LINES:
        old, new = old[: head - start + DIFF_MAX_LINES], new[: head - start + DIFF_MAX_LINES]
        notes.append(
            f"(diff cut: only the first {DIFF_MAX_LINES} of {differing:,} lines from the first difference on are "
            "compared)"
        )
    column = 0
    if head < len(before) and head < len(after):
        column = max(0, _first_difference(before[head], after[head]) - DIFF_LINE_CHARS // 3)
    before_label, after_label = labels or (f"{name} (recorded)", "printed now")
    diff = list(difflib.unified_diff(old, new, before_label, after_label, lineterm=""))
    for index, line in enumerate(diff[2:], 2):
        hunk = HUNK.match(line)
        if hunk:  # line numbers in the whole outputs, not in the compared stretch
            diff[index] = f"@@ -{int(hunk[1]) + start}{hunk[2] or ''} +{int(hunk[3]) + start}{hunk[4] or ''} @@"
        else:
            diff[index] = _shown(line, column)
    if any(len(line) > DIFF_LINE_CHARS + 1 for line in old + new):
        notes.append(
            f"(long lines are cut to {DIFF_LINE_CHARS} characters from column {column:,}, near the first difference)"
        )
    return "\n".join(diff + notes)


class Recordings:
    """One release's recordings as a build on one Python reads them: the shared files, and
    that Python's overlay where it prints differently."""

    def __init__(
        self,
        root: Path,
        release: str,
        directory: Path | None = None,
        python: str = RECORDED_PYTHON,
        platform: str = RECORDED_PLATFORM,
        kill_at: str | None = None,
    ):
        self.root = root
        self.release = release
        self.home = root / "recordings" / f"torch-{release}"
        self.directory = directory or self.home  # where files are read and written: home, or a stage of it
        self.python = python_minor(python)
        self.platform = platform
        self.kill_at = kill_at  # tests: where a re-recording kills itself (`switches.GOLDENS_KILL_AT`)
        self._remembered: dict[tuple[str, str, str], str | None] = {}  # see `remember`
        self._remembered_figures: dict[tuple[str, str, str], str | None] = {}

    def with_changes(self, **changes) -> Recordings:
        """These recordings with some of what places them changed (`release`, `directory`, `python`,
        `platform`): the one way to copy them, so that a copy keeps every other field (a stage that
        dropped the platform once wrote a platform's drift into the shared files)."""
        fields = {
            "root": self.root,
            "release": self.release,
            "directory": None if self.directory == self.home else self.directory,
            "python": self.python,
            "platform": self.platform,
            "kill_at": self.kill_at,
        }
        return Recordings(**{**fields, **changes})

    def relative(self, path: Path) -> str:
        """Repository-relative, where the file is (or will be, once its stage is swapped in)."""
        return (self.home / path.relative_to(self.directory)).relative_to(self.root).as_posix()

    @property
    def overlay(self) -> Path | None:
        """This Python's overlay directory; None for the Python the shared files are recorded with."""
        return None if self.python == RECORDED_PYTHON else self.directory / f"{OVERLAY_PREFIX}{self.python}"

    @property
    def has_overlay(self) -> bool:
        """This Python's outputs were recorded (or need none: it is the recording Python)."""
        return _recorded(self.overlay)

    @property
    def platform_overlay(self) -> Path | None:
        """This platform's overlay directory; None for the platform the shared files are recorded on."""
        return None if self.platform == RECORDED_PLATFORM else self.directory / f"{PLATFORM_PREFIX}{self.platform}"

    @property
    def has_platform(self) -> bool:
        """This platform's outputs were recorded (or need none: it is the recording platform)."""
        return _recorded(self.platform_overlay)

    def _layers(self) -> list[Path]:
        """The directories a build on this Python and platform reads, in order of precedence: the
        platform's overlay, this Python's, the shared files. The one statement of that order."""
        return [*(layer for layer in (self.platform_overlay, self.overlay) if layer is not None), self.directory]

    @staticmethod
    def _found(relative: Path, layers: list[Path]) -> Path:
        """The first of `layers` that holds `relative`, else the last one's place for it."""
        return next((layer / relative for layer in layers[:-1] if (layer / relative).is_file()), layers[-1] / relative)

    def _own_and_base(self, relative: Path) -> tuple[Path, Path]:
        """Where this build records `relative` (its own layer), and what it would read without that file."""
        layers = self._layers()
        own = layers[0] / relative
        return own, (self._found(relative, layers[1:]) if len(layers) > 1 else own)

    def pythons(self) -> list[str]:
        """The Pythons with an overlay for this release."""
        if not self.directory.is_dir():
            return []
        found = [p.name.removeprefix(OVERLAY_PREFIX) for p in self.directory.glob(f"{OVERLAY_PREFIX}*") if p.is_dir()]
        return sorted(found, key=release_order)

    def with_python(self, python: str) -> Recordings:
        return self.with_changes(python=python)

    def shared_path(self, block: Block) -> Path:
        suffix = ".cuda.txt" if block.device == "cuda" else ".txt"
        return self.directory / recorded_folder(block.page) / f"{block.id}{suffix}"

    def shared_figure_path(self, block: Block) -> Path:
        return self.directory / recorded_folder(block.page) / f"{block.id}{FIGURE_SUFFIX}"

    def figure_path(self, block: Block) -> Path:
        """The figure recording a build on this Python and platform checks: as `path` finds an output's."""
        return self._found(self.shared_figure_path(block).relative_to(self.directory), self._layers())

    def path(self, block: Block) -> Path:
        """The recording a build on this Python and platform checks: the platform's overlay, this
        Python's, or the shared file, the first that holds one."""
        return self._found(self.shared_path(block).relative_to(self.directory), self._layers())

    def remember(self, pages: list[Page]) -> None:
        """Read the recordings of `pages` now, and answer `read` from what was read: pages that
        run afterwards are checked against their recordings as they were before anything ran."""
        for page in pages:
            for block in page.blocks:
                self._remembered[_key(block)] = self._read_file(self.path(block))
                if block.figure:
                    self._remembered_figures[_key(block)] = self._read_file(self.figure_path(block))

    def read(self, block: Block) -> str | None:
        if _key(block) in self._remembered:
            return self._remembered[_key(block)]
        return self._read_file(self.path(block))

    def read_figure(self, block: Block) -> str | None:
        """The recorded figure of `block` (sanitised SVG text, without its final newline), or None."""
        if _key(block) in self._remembered_figures:
            return self._remembered_figures[_key(block)]
        return self._read_file(self.figure_path(block)) if block.figure else None

    def _read_file(self, path: Path) -> str | None:
        text = self._text(path)
        return None if text is None else text.rstrip("\n")

    def _text(self, path: Path) -> str | None:
        """A recording file's text (None where there is none), read inside the tree and through no link."""
        confined_path(self.root, path, "recording")
        if not path.exists():
            return None
        if not path.is_file():
            raise TreeError(f"{self.relative(path)}: not a file where a recording should be; remove it")
        return read_text(path, self.relative(path))

    def read_gpu(self, block: Block) -> GpuRecording | None:
        text = self.read(block)
        if text is None:
            return None
        head, separator, output = text.partition(PROVENANCE_END + "\n")
        if not separator:
            head, output = text.removesuffix(PROVENANCE_END), ""
        fields = dict(re.findall(r"^(device|torch|recorded): (.*)$", head, re.MULTILINE))
        return GpuRecording(fields.get("device", "?"), fields.get("torch", "?"), fields.get("recorded", "?"), output)

    def outputs(self) -> dict[tuple[str, str], str]:
        """Every shared recorded output by (page, file name), e.g. ("setup.md", "version-version.txt")."""
        return {
            (page_of_folder(path.parent.relative_to(self.directory).as_posix()), path.name): self._text(path) or ""
            for path in self.all_files()
        }

    @property
    def exists(self) -> bool:
        return self.directory.is_dir()

    def page_outputs(self, page: str) -> list[str]:
        """Every output recorded for one page (CPU and GPU blocks alike), as this Python prints them."""
        files: dict[str, Path] = {}
        for layer in reversed(self._layers()):  # the shared files first, each overlay over them
            files.update({path.name: path for path in (layer / recorded_folder(page)).glob("*.txt")})
        return [self._text(files[name]) or "" for name in sorted(files)]

    def anchors(self) -> dict[str, str]:
        """Source link target -> its recorded lines (`first-last`, or `file` for a path-only link)."""
        text = self._text(self.directory / ANCHORS) or ""
        return dict(line.split("\t", 1) for line in text.splitlines() if "\t" in line)

    def write_anchors(self, anchors: dict[str, str]) -> None:
        self.directory.mkdir(parents=True, exist_ok=True)
        write_atomically(
            self._writable(self.directory / ANCHORS),
            "".join(f"{target}\t{lines}\n" for target, lines in sorted(anchors.items())),
        )

    def all_files(self) -> list[Path]:
        """The shared recordings (overlays left out)."""
        if not self.directory.is_dir():
            return []
        return sorted(
            path
            for path in self.directory.rglob("*.txt")
            if not path.relative_to(self.directory).parts[0].startswith((OVERLAY_PREFIX, PLATFORM_PREFIX))
        )

    def figure_files(self) -> list[Path]:
        """The shared recorded figures (overlays left out)."""
        if not self.directory.is_dir():
            return []
        return sorted(
            path
            for path in self.directory.rglob(f"*{FIGURE_SUFFIX}")
            if not path.relative_to(self.directory).parts[0].startswith((OVERLAY_PREFIX, PLATFORM_PREFIX))
        )

    def overlay_files(self) -> list[Path]:
        """Every Python's and platform's overlay recordings, outputs and figures."""
        if not self.directory.is_dir():
            return []
        overlays = [*self.directory.glob(f"{OVERLAY_PREFIX}*"), *self.directory.glob(f"{PLATFORM_PREFIX}*")]
        return sorted(
            path
            for overlay in overlays
            for pattern in ("*.txt", f"*{FIGURE_SUFFIX}")
            for path in overlay.rglob(pattern)
        )

    def stale(self, pages: list[Page]) -> list[Path]:
        """Recordings (outputs and figures), shared or of any Python, whose block is gone from its page
        (or, for a figure, whose block no longer draws one)."""
        blocks = [block for page in pages for block in page.blocks]
        wanted = {self.shared_path(block).relative_to(self.directory) for block in blocks}
        wanted |= {self.shared_figure_path(block).relative_to(self.directory) for block in blocks if block.figure}
        stale = [
            path for path in [*self.all_files(), *self.figure_files()] if path.relative_to(self.directory) not in wanted
        ]
        for path in self.overlay_files():
            if Path(*path.relative_to(self.directory).parts[1:]) not in wanted:
                stale.append(path)
        return stale

    def write(self, block: Block, output: str, provenance: dict[str, str] | None = None) -> Path | None:
        """Record an output: in the shared file, or on another platform or Python in its overlay
        where it differs from what that build would otherwise read (an overlay that would repeat
        it is removed). A file whose only difference is a measured value is left as it is.
        Returns the file that holds the output; None where the shared recording (or the Python's,
        for a platform) holds it."""
        text = output
        if provenance is not None:
            head = "".join(f"{key}: {provenance[key]}\n" for key in ("device", "torch", "recorded"))
            text = f"{head}{PROVENANCE_END}\n{output}"
        path, base = self._own_and_base(self.shared_path(block).relative_to(self.directory))
        self._remembered.pop(_key(block), None)
        if path != base:
            if (recorded := self._text(base)) is not None and masked(recorded) == masked(text + "\n"):
                if self._text(path) is not None:
                    self.remove(path)
                return None
        if (recorded := self._text(path)) is not None and masked(recorded) == masked(text + "\n"):
            return path
        path.parent.mkdir(parents=True, exist_ok=True)
        write_atomically(self._writable(path), text + "\n")
        _fault_point("writing", self.kill_at)
        return path

    def write_figure(self, block: Block, figure: str) -> Path | None:
        """Record a figure as `write` records an output: shared, or in this Python's or platform's
        overlay where it differs from what that build would otherwise read. Returns the file written,
        or None where nothing changed."""
        path, base = self._own_and_base(self.shared_figure_path(block).relative_to(self.directory))
        text = figure.rstrip("\n") + "\n"
        self._remembered_figures.pop(_key(block), None)
        if path != base and self._text(base) == text:
            if self._text(path) is not None:
                self.remove(path)
            return None
        if self._text(path) == text:
            return None
        path.parent.mkdir(parents=True, exist_ok=True)
        write_atomically(self._writable(path), text)
        return path

    def other_pythons(self, block: Block) -> dict[str, str]:
        """What each other supported Python with recordings prints for `block`, where it differs from this one.
        GPU-only blocks are left out: their recordings carry the date and device they were made on."""
        if block.device == "cuda":
            return {}
        own = self.read(block)
        others = {}
        for python in SUPPORTED_PYTHONS:
            other = self.with_python(python)
            if other.python == self.python or not other.has_overlay:
                continue
            output = other.read(block)
            if output is not None and (own is None or masked(output) != masked(own)):
                others[python] = output
        return others

    def mark_overlay(self, python_version: str) -> None:
        """Say that this Python's outputs were recorded, and with which patch release, even where none differs."""
        if self.overlay is not None:
            self.overlay.mkdir(parents=True, exist_ok=True)
            write_atomically(self._writable(self.overlay / OVERLAY_MARK), python_version + "\n")

    def mark_platform(self) -> None:
        """Say that this platform's outputs were recorded, even where none differs."""
        if self.platform_overlay is not None:
            self.platform_overlay.mkdir(parents=True, exist_ok=True)
            write_atomically(self._writable(self.platform_overlay / PLATFORM_MARK), self.platform + "\n")

    def _writable(self, path: Path) -> Path:
        """`path`, to be written: inside the tree, through no link, and no directory."""
        confined_path(self.root, path, "recording")
        if path.is_dir():
            raise TreeError(f"{self.relative(path)}: a directory where a recording should be; remove it")
        return path

    def remove(self, path: Path) -> None:
        self._writable(path).unlink()
        for parent in path.parents:
            if parent == self.directory or not parent.is_dir() or any(parent.iterdir()):
                break
            parent.rmdir()


def _key(block: Block) -> tuple[str, str, str]:
    return block.page, block.id, block.device


def _recorded(overlay: Path | None) -> bool:
    """An overlay's outputs were recorded, or none is needed (the recording Python or platform)."""
    return overlay is None or overlay.is_dir()


def _fault_point(name: str, kill_at: str | None) -> None:
    """Tests kill a real re-recording here (`HANDBOOK_GOLDENS_KILL_AT=<name>`), as a user's ^C or a CI timeout would."""
    if kill_at == name:
        os.kill(os.getpid(), signal.SIGKILL)


def _stage_paths(home: Path) -> tuple[Path, Path]:
    """Beside `home`, so that renames stay on one filesystem; hidden, and ignored by git."""
    return home.with_name(f".{home.name}.new"), home.with_name(f".{home.name}.old")


RENAME_EXCHANGE = 2  # <linux/fs.h>
AT_FDCWD = -100


def _exchange(first: Path, second: Path) -> bool:
    """Swap two directories in one atomic step (renameat2); False where the system cannot."""
    try:
        renameat2 = ctypes.CDLL(None, use_errno=True).renameat2
    except (OSError, AttributeError):
        return False
    return renameat2(AT_FDCWD, os.fsencode(first), AT_FDCWD, os.fsencode(second), RENAME_EXCHANGE) == 0


def recover_stage(home: Path) -> None:
    """Finish or undo what a killed re-recording left beside `home`.

    With an atomic exchange, `home` is always whole (old or new), so a leftover stage is
    removed. Where two renames were needed, a kill between them leaves `home` missing
    and a complete stage beside it, which is swapped in."""
    new, old = _stage_paths(home)
    if not home.exists() and old.is_dir() and new.is_dir():
        os.rename(new, home)
    for leftover in (new, old):
        shutil.rmtree(leftover, ignore_errors=True)


@contextlib.contextmanager
def staged(recordings: Recordings, kill_at: str | None = None) -> Iterator[Recordings]:
    """The release's recordings to change, as a copy that replaces them whole when the block
    ends without an error (and is dropped when it raises). `kill_at`: a test's fault point."""
    home = recordings.home
    new, old = _stage_paths(home)
    recover_stage(home)
    links = links_in(recordings.root)
    if links:  # copied as links, they would be written through
        raise TreeError(f"no recording was changed: symbolic link(s) in the repository: {', '.join(links)}")
    if home.is_dir():
        shutil.copytree(home, new, symlinks=True)
    else:
        new.mkdir(parents=True)
    try:
        yield recordings.with_changes(directory=new, kill_at=kill_at)
    except BaseException:
        shutil.rmtree(new, ignore_errors=True)
        raise
    _fault_point("staged", kill_at)
    if not home.exists():
        os.rename(new, home)
    elif _exchange(new, home):
        old = new  # it now holds what `home` held
    else:
        os.rename(home, old)
        _fault_point("half-swapped", kill_at)
        os.rename(new, home)
    _fault_point("swapped", kill_at)
    shutil.rmtree(old, ignore_errors=True)
