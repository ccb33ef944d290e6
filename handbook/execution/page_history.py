"""What each page took when it last ran: its seconds and its processes' peak memory. The build
orders pages by the one (longest first) and lets pages share the machine by the other; both are
hints, so a history that cannot be read or written is an empty one."""

from __future__ import annotations

import json
from pathlib import Path

from handbook.tree_files import write_atomically

FILE_NAME = "page-history.json"  # in the cache directory
PEAKS_KEY = "proportional_peak_bytes"


class PageHistory:
    def __init__(self, path: Path):
        self.path = path
        try:
            stored = json.loads(path.read_text(encoding="utf-8"))
            self.seconds: dict[str, float] = dict(stored["seconds"])
            # Proportional set sizes; a history written before they were (resident sizes) has no peaks.
            self.peaks: dict[str, int] = dict(stored.get(PEAKS_KEY, {}))
        except (OSError, ValueError, KeyError, TypeError):
            self.seconds, self.peaks = {}, {}

    def expected_seconds(self, page: str) -> float:
        """Unknown pages count as the longest: they start first."""
        return self.seconds.get(page, float("inf"))

    def update(self, page: str, seconds: float, peak: int) -> None:
        self.seconds[page] = round(seconds, 3)
        if peak:
            self.peaks[page] = peak

    def save(self) -> None:
        try:
            text = json.dumps({"seconds": self.seconds, PEAKS_KEY: self.peaks}, indent=1, sort_keys=True)
            write_atomically(self.path, text)
        except OSError:
            pass  # a hint only
