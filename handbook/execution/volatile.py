"""The static check of every recording for what usually depends on time, load or the machine.

A recorded output is compared byte for byte in every build, so a value in it that moves with
the clock, the load or the machine (a duration, a time left, a date, a process id, a port, an
address, a temporary path, a user or host name, a count of threads, workers or cores) makes
the build fail for a reason that is not "torch changed". Such a value is normalised
(`normalise`), printed as a measured value with a claim (`measurements`), or stable for a
reason someone wrote down: `recordings/volatile-allowed.toml` lists each such hit, by block
and by the text matched, with that reason. Every other hit fails the check (`make test-fast`),
and so does an allowance that no longer matches anything.

The patterns are deliberately wide: a hit costs one line of reasoning in the allow-list, a
miss costs a build that fails on a busy machine. Each runs in time linear in its line.
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass
from pathlib import Path

from handbook.execution.measurements import masked
from handbook.execution.recordings import OVERLAY_PREFIX, PLATFORM_PREFIX

ALLOWED_FILE = "recordings/volatile-allowed.toml"

_NUMBER = r"(?<![\w.])\d+(?:[.,]\d+)?"
KINDS: dict[str, re.Pattern[str]] = {
    "duration": re.compile(
        _NUMBER + r"\s?(?:ns|us|µs|ms|sec|secs|seconds?|minutes?|mins?|hours?|hrs?|s|h)(?![\w(])", re.IGNORECASE
    ),
    "time of day": re.compile(r"\b\d{1,2}:\d{2}:\d{2}(?:\.\d+)?\b"),
    "date": re.compile(
        r"\b(?:19|20)\d{2}-[01]\d-[0-3]\d\b|\b(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun),? "
        r"(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)\b"
    ),
    "timestamp": re.compile(r"(?<![\w.])1[5-9]\d{8}(?:\d{3,9})?(?:\.\d+)?(?![\w.])"),
    "process or thread id": re.compile(
        r"\b(?:pid|ppid|tid|thread[ _]?id|process[ _]?id|native_id|ident)\b[^\w\n]{0,3}\d+", re.IGNORECASE
    ),
    "port": re.compile(
        r"(?:\blocalhost|\b\d{1,3}\.\d{1,3}\.\d{1,3}\.\d{1,3}|\])[:]\d{2,5}\b|\bport\b[^\w\n]{0,3}\d{2,5}\b",
        re.IGNORECASE,
    ),
    "address": re.compile(r"\b0x[0-9a-fA-F]{6,}\b"),
    "temporary path": re.compile(r"(?:/tmp/|/var/tmp/|/var/folders/|/private/var/|\\Temp\\)[\w.-]+"),
    "user or host": re.compile(
        r"/home/[\w.-]+|/Users/[\w.-]+|/root/|\bhost_?name\b|\buser_?name\b|\bgetpass\b", re.IGNORECASE
    ),
    "count of threads, workers or cores": re.compile(
        r"\b\d+\s+(?:\w+\s+)?(?:threads?|workers?|cores?|CPUs?|processe?s|processors)\b"
        # a word of these, not a path's directory (`core/TensorBody.h:493`), then a number after `:` or `=`
        r"|\b(?:threads?|workers?|cores?|CPUs?|processe?s|processors|num_threads|num_workers|cpu_count)\b(?![/.])"
        r"[^\n:=]{0,60}[:=]\s*\d+",
        re.IGNORECASE,
    ),
    "shared memory": re.compile(r"/dev/shm\b[^\n]{0,80}\d"),
}


@dataclass(frozen=True)
class Hit:
    path: str  # repository-relative recording
    line: int
    block: str  # `<page>/<block id>`: what an allowance names, the same for every release and overlay
    kind: str
    text: str  # what the pattern matched

    def describe(self) -> str:
        return f"{self.path}:{self.line}: {self.kind} {self.text!r} (block {self.block})"


@dataclass(frozen=True)
class Allowance:
    block: str
    text: str
    reason: str


class AllowListError(ValueError):
    """The allow-list cannot be read: it names its file and the entry."""


def block_of(recording: Path, release_dir: Path) -> str:
    """`<page>/<block id>` of a recording file under a release's directory, overlays included."""
    parts = list(recording.relative_to(release_dir).parts)
    if parts[0].startswith((OVERLAY_PREFIX, PLATFORM_PREFIX)):
        parts = parts[1:]
    name = parts[-1].removesuffix(".txt").removesuffix(".cuda")
    return "/".join([*parts[:-1], name])


def hits_in(text: str, path: str, block: str) -> list[Hit]:
    """Every hit in one recording's text; measured values are masked first (their claim checks them)."""
    found = []
    for number, line in enumerate(masked(text).split("\n"), 1):
        for kind, pattern in KINDS.items():
            found += [Hit(path, number, block, kind, match.group(0)) for match in pattern.finditer(line)]
    return found


def recorded_hits(root: Path) -> list[Hit]:
    """The hits in every recorded output of every release, its overlays included (figures draw what
    their blocks print, so the printed text is what is read)."""
    found = []
    for release_dir in sorted((root / "recordings").glob("torch-*")):
        for recording in sorted(release_dir.rglob("*.txt")):
            text = recording.read_text(encoding="utf-8", errors="replace")
            path = recording.relative_to(root).as_posix()
            found += hits_in(text, path, block_of(recording, release_dir))
    return found


def read_allowed(root: Path) -> list[Allowance]:
    path = root / ALLOWED_FILE
    if not path.is_file():
        return []
    try:
        entries = tomllib.loads(path.read_text(encoding="utf-8")).get("stable", [])
    except tomllib.TOMLDecodeError as error:
        raise AllowListError(f"{ALLOWED_FILE}: {error}") from error
    allowed = []
    for number, entry in enumerate(entries, 1):
        fields = {name: entry.get(name) for name in ("block", "text", "reason")}
        if set(entry) != set(fields) or not all(isinstance(value, str) and value.strip() for value in fields.values()):
            raise AllowListError(
                f"{ALLOWED_FILE}, entry {number}: an entry has exactly block, text and reason, each non-empty text"
            )
        allowed.append(Allowance(**fields))
    return allowed


@dataclass
class Audit:
    unexplained: list[Hit]
    unused: list[Allowance]  # allowances that match no hit: the text changed or the block went

    @property
    def ok(self) -> bool:
        return not self.unexplained and not self.unused

    def report(self) -> str:
        lines = [
            f"{hit.describe()}: depends on time, load or the machine? Normalise it, print it as a measured value "
            f"with a claim, or list it in {ALLOWED_FILE} with the reason it is stable"
            for hit in self.unexplained
        ]
        lines += [
            f"{ALLOWED_FILE}: block {entry.block!r}, text {entry.text!r} matches no recording any more: remove it"
            for entry in self.unused
        ]
        return "\n".join(lines)


def audit(hits: list[Hit], allowed: list[Allowance]) -> Audit:
    by_key = {(entry.block, entry.text): entry for entry in allowed}
    used = {(hit.block, hit.text) for hit in hits if (hit.block, hit.text) in by_key}
    return Audit(
        unexplained=[hit for hit in hits if (hit.block, hit.text) not in by_key],
        unused=[entry for key, entry in by_key.items() if key not in used],
    )


def audit_recordings(root: Path) -> Audit:
    return audit(recorded_hits(root), read_allowed(root))
