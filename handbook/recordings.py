"""Recorded outputs: plain text under version control, one file per block, per torch release.

`recordings/torch-<release>/<page>/<block id>.txt` holds a CPU block's output.
A GPU-only block's recording, `<block id>.cuda.txt`, starts with its provenance
(device, torch, date) above a separator line.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass
from pathlib import Path

from handbook.blocks import Block, Page
from handbook.environment import version_key

PROVENANCE_END = "--- output ---"
ANCHORS = "source-anchors.tsv"  # every source link's lines, recorded beside the outputs


def recorded_releases(root: Path) -> list[str]:
    found = [p.name.removeprefix("torch-") for p in (root / "recordings").glob("torch-*") if p.is_dir()]
    return sorted(found, key=version_key)


def nearest_release(root: Path, release: str) -> str | None:
    """The recorded release closest to `release`: a new torch is first compared with its neighbour."""
    target = version_key(release)
    distance = lambda r: tuple(abs(a - b) for a, b in zip(version_key(r), target))  # noqa: E731
    releases = [r for r in recorded_releases(root) if r != release]
    return min(releases, key=distance) if releases else None


@dataclass(frozen=True)
class GpuRecording:
    device: str
    torch: str
    date: str
    output: str


def unified_diff(recorded: str, printed: str, name: str) -> str:
    lines = difflib.unified_diff(recorded.splitlines(), printed.splitlines(), f"{name} (recorded)", "printed now", lineterm="")
    return "\n".join(lines)


class Recordings:
    def __init__(self, root: Path, release: str):
        self.root = root
        self.release = release
        self.directory = root / "recordings" / f"torch-{release}"

    def relative(self, path: Path) -> str:
        return path.relative_to(self.root).as_posix()

    def path(self, block: Block) -> Path:
        suffix = ".cuda.txt" if block.device == "cuda" else ".txt"
        return self.directory / block.page.removesuffix(".md") / f"{block.id}{suffix}"

    def read(self, block: Block) -> str | None:
        path = self.path(block)
        if not path.is_file():
            return None
        return path.read_text(encoding="utf-8").rstrip("\n")

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
        """Every recorded output by (page, file name), e.g. ("setup.md", "version-version.txt")."""
        return {(path.parent.relative_to(self.directory).as_posix() + ".md", path.name): path.read_text(encoding="utf-8") for path in self.all_files()}

    def anchors(self) -> dict[str, str]:
        """Source link target -> its recorded lines (`first-last`, or `file` for a path-only link)."""
        path = self.directory / ANCHORS
        if not path.is_file():
            return {}
        return dict(line.split("\t", 1) for line in path.read_text(encoding="utf-8").splitlines() if "\t" in line)

    def write_anchors(self, anchors: dict[str, str]) -> None:
        self.directory.mkdir(parents=True, exist_ok=True)
        (self.directory / ANCHORS).write_text("".join(f"{target}\t{lines}\n" for target, lines in sorted(anchors.items())), encoding="utf-8")

    def all_files(self) -> list[Path]:
        if not self.directory.is_dir():
            return []
        return sorted(self.directory.rglob("*.txt"))

    def stale(self, pages: list[Page]) -> list[Path]:
        """Recordings whose block is gone from its page."""
        wanted = {self.path(block) for page in pages for block in page.blocks}
        return [path for path in self.all_files() if path not in wanted]

    def write(self, block: Block, output: str, provenance: dict[str, str] | None = None) -> None:
        path = self.path(block)
        path.parent.mkdir(parents=True, exist_ok=True)
        text = output
        if provenance is not None:
            head = "".join(f"{key}: {provenance[key]}\n" for key in ("device", "torch", "recorded"))
            text = f"{head}{PROVENANCE_END}\n{output}"
        path.write_text(text + "\n", encoding="utf-8")

    def remove(self, path: Path) -> None:
        path.unlink()
        for parent in path.parents:
            if parent == self.directory or not parent.is_dir() or any(parent.iterdir()):
                break
            parent.rmdir()
