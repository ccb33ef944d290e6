"""A page that leaves a daemon running, for the tests of what ends a page's processes."""

from __future__ import annotations

import random
import time
from pathlib import Path

import psutil

from handbook.execution.runner import BlockJob, PageJob, run_pages

REPO = Path(__file__).resolve().parent.parent


def run_page_leaving(daemon: str) -> tuple[list, list[str]]:
    """Run a page whose one block starts `daemon` (Python source) and returns; the page's block
    runs, and the command lines of the daemon's processes still alive after the page ended
    (killed then, so that no test leaves them)."""
    marker = f"daemon-{random.randint(10_000, 99_999)}"
    code = (
        f"import subprocess, sys, time\nsubprocess.Popen([sys.executable, '-c', {daemon!r}, {marker!r}])\n"
        "time.sleep(1)\nprint('started')"
    )

    def alive() -> list[psutil.Process]:
        found = []
        for process in psutil.process_iter(["cmdline", "status"]):
            if marker in (process.info["cmdline"] or []) and process.info["status"] != psutil.STATUS_ZOMBIE:
                found.append(process)
        return found

    try:
        runs = run_pages([PageJob("p", [BlockJob(code, "docs/p.md", 1, 30)])], REPO)["p"]
        time.sleep(0.5)
        return runs, [" ".join(process.info["cmdline"]) for process in alive()]
    finally:
        for process in alive():
            try:
                process.kill()
            except psutil.Error:
                pass
