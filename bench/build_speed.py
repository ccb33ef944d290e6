"""`make bench`: build speed as ratios measured in one run, on a copy of the current tree.

Builds run in this one process, as `mkdocs serve` runs them: the fork server that
has imported torch stays up between builds. Phases, in order:

1. render-only build (`HANDBOOK_EXECUTE=0`: recordings shown, nothing run);
2. clean build: empty execution and compile caches, a cold fork server;
3. no-change rebuild;
4. rebuild after editing one block of one page;
5. `make serve` on the tree, as a writer runs it: the time from saving a one-line prose edit,
   then a snippet edit, until the served page shows it (`reload_prose_s`, `reload_snippet_s`);
   then `render_s`: a render-only build as a writer runs one on a tree built before, a fresh
   `HANDBOOK_EXECUTE=0 mkdocs build` process with the caches warm (phase 1's build, on empty
   caches and in this process, finds every source link's symbol in the torch sources);
6. clean build again, every cache emptied but the page history the builds before wrote: pages
   run side by side only within the peaks they reached before (`runner.PEAK_SHARE`), and
   `peak_over_heaviest` is this build's peak over the heaviest page's alone;
7. every page's own execution, serially, one worker, caches emptied first.

Peak memory is the largest memory held by this process and all its descendants,
sampled every 50 ms, as the sum of their proportional set sizes (PSS: a page of
memory that n processes share counts 1/n in each, so the sum is what the tree holds;
every page process shares the ~150 MB of torch it inherited from the fork server).
The sum of resident set sizes, which counts such a page once per process, is
printed beside it. Each phase's peak is printed beside its time (in phase 7, each page's
peak alone), and the overall peak with its phase and the largest processes at that moment.
"""

from __future__ import annotations

import argparse
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
# What a build reads, and what `make serve` needs to find its environment installed.
COPIED = ("docs", "snippets", "recordings", "source-index", "overrides", "handbook", "mkdocs.yml")
COPIED += ("Makefile", "requirements.lock", "locks", "pyproject.toml")


class PeakMemory(threading.Thread):
    def __init__(self) -> None:
        super().__init__(daemon=True)
        self.peak_pss = 0
        self.peak_rss = 0
        self.running = True
        self.phase = ""  # what the build is doing; set by main as it goes
        # Where the peak was: the phase, and the largest processes then as (PSS, command).
        self.peak_phase = ""
        self.phase_peaks: dict[str, int] = {}  # phase -> the largest PSS sum seen during it
        self.peak_holders: list[tuple[int, str]] = []

    @staticmethod
    def tree(root: int) -> list[int]:
        parents: dict[int, int] = {}
        for entry in os.listdir("/proc"):
            if not entry.isdigit():
                continue
            try:
                stat = Path(f"/proc/{entry}/stat").read_text()
                parents[int(entry)] = int(stat.rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
        found, stack = [], [root]
        while stack:
            pid = stack.pop()
            found.append(pid)
            stack += [child for child, parent in parents.items() if parent == pid]
        return found

    @staticmethod
    def memory(pid: int) -> tuple[int, int]:
        """(PSS, RSS) of one process, in bytes."""
        try:
            fields = dict(line.split(":", 1) for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines()[1:])
            return int(fields["Pss"].split()[0]) * 1024, int(fields["Rss"].split()[0]) * 1024
        except (OSError, KeyError, ValueError, IndexError):
            return 0, 0

    @staticmethod
    def command(pid: int) -> str:
        try:
            words = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
        except OSError:
            return "?"
        command = " ".join(" ".join(word.decode(errors="replace") for word in words[:3]).split())[:80]
        return command or "(a process that has just ended)"

    def run(self) -> None:
        while self.running:
            pids = self.tree(os.getpid())
            sizes = [self.memory(pid) for pid in pids]
            pss = sum(pss for pss, _ in sizes)
            self.phase_peaks[self.phase] = max(self.phase_peaks.get(self.phase, 0), pss)
            if pss > self.peak_pss:
                self.peak_pss, self.peak_phase = pss, self.phase
                largest = sorted(zip(sizes, pids, strict=True), reverse=True)[:6]
                self.peak_holders = [(size, self.command(pid)) for (size, _), pid in largest]
            self.peak_rss = max(self.peak_rss, sum(rss for _, rss in sizes))
            time.sleep(0.05)


def build(root: Path) -> float:
    from mkdocs.commands.build import build as mkdocs_build
    from mkdocs.config import load_config

    config = load_config(str(root / "mkdocs.yml"), site_dir=str(root / "site"))
    config.plugins.on_startup(command="build", dirty=False)
    started = time.perf_counter()
    mkdocs_build(config)
    return time.perf_counter() - started


def edit_one_block(root: Path, page: str) -> str:
    """Change the code of the page's first block without changing its output; the text added."""
    from handbook.execution.blocks import scan_page

    block = scan_page(root, "docs", page).blocks[0]
    path = root / block.origin_file
    lines = path.read_text().splitlines()
    last = block.origin_line - 1 + len(block.code.splitlines())
    indent = lines[last - 1][: len(lines[last - 1]) - len(lines[last - 1].lstrip())]
    marker = f"_bench_edit_{time.time_ns()}"
    lines.insert(last, f"{indent}{marker} = 1  # changes the block's code, not its output")
    path.write_text("\n".join(lines) + "\n")
    return marker


def edit_one_sentence(root: Path, page: str) -> str:
    """Add a word to the page's first paragraph; the word."""
    path = root / "docs" / page
    lines = path.read_text().splitlines()
    first = next(n for n, line in enumerate(lines) if n and line[:1].isalpha() and lines[n - 1] == "")
    marker = f"benchedit{time.time_ns()}"
    lines[first] += f" {marker}"
    path.write_text("\n".join(lines) + "\n")
    return marker


class Served:
    """`make serve` on the bench's tree, on a free port, as a writer runs it."""

    def __init__(self, root: Path, log: Path):
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            self.address = f"127.0.0.1:{probe.getsockname()[1]}"
        command = ["make", "-f", str(REPO / "Makefile"), "--no-print-directory", "serve"]
        command += [f"VENV={REPO / '.venv'}", f"SERVE_ADDR={self.address}"]
        self.log = log.open("w")
        self.process = subprocess.Popen(
            command, cwd=root, stdout=self.log, stderr=subprocess.STDOUT, start_new_session=True
        )

    def page(self, page: str) -> str:
        path = "" if page == "index.md" else page.removesuffix(".md") + "/"
        try:  # the server answers a page only once the build that is running has finished
            with urllib.request.urlopen(f"http://{self.address}/{path}", timeout=600) as response:
                return response.read().decode()
        except OSError:
            return ""

    def seconds_until(self, page: str, text: str, started: float, limit: float = 900) -> float:
        """From `started` until the served page holds `text`."""
        while text not in self.page(page):
            if self.process.poll() is not None or time.perf_counter() - started > limit:
                raise SystemExit(f"make serve did not show the edit to {page}: see {self.log.name}")
            time.sleep(0.05)
        return time.perf_counter() - started

    def close(self) -> None:
        os.killpg(self.process.pid, signal.SIGTERM)
        self.process.wait()
        self.log.close()


def render_only_seconds(root: Path) -> float:
    """`HANDBOOK_EXECUTE=0 mkdocs build` on the tree, in a process of its own, start to end."""
    command = [sys.executable, "-m", "mkdocs", "build", "--quiet", "--site-dir", str(root / "site-render-only")]
    started = time.perf_counter()
    subprocess.run(command, cwd=root, env={**os.environ, "HANDBOOK_EXECUTE": "0"}, check=True, capture_output=True)
    return time.perf_counter() - started


def reload_seconds(root: Path, page: str, log: Path) -> tuple[float, float]:
    """Under `make serve`: seconds from saving a prose edit, then a snippet edit, to the served page showing it."""
    served = Served(root, log)
    try:
        served.seconds_until(page, "<html", time.perf_counter())  # the first build
        time.sleep(2)  # the watcher settles
        started = time.perf_counter()
        prose = served.seconds_until(page, edit_one_sentence(root, page), started)
        time.sleep(2)
        started = time.perf_counter()
        snippet = served.seconds_until(page, edit_one_block(root, page), started)
    finally:
        served.close()
    return prose, snippet


def serial_page_seconds(root: Path, memory: PeakMemory) -> dict[str, float]:
    from handbook.execution.blocks import scan_docs
    from handbook.execution.pipeline import _job, page_environment, prepare_page_processes
    from handbook.execution.runner import run_pages

    prepare_page_processes(root)
    cuda = page_environment(root).has_cuda
    seconds = {}
    for page in scan_docs(root):
        if not page.blocks:
            continue
        memory.phase = f"serial execution of {page.path}"
        started = time.perf_counter()
        runs = run_pages([_job(page, cuda)], root, workers=1)[page.path]
        seconds[page.path] = time.perf_counter() - started
        failed = [r.status for r in runs if not r.status.storable]
        if failed:
            raise SystemExit(f"{page.path} failed while measured serially: {failed}")
    return seconds


# The build that peak_over_heaviest measures: every cache emptied but the page history, which
# the builds before it wrote (each page's peak), as on a machine that has built the handbook before.
KNOWN_PEAKS = "clean build, page peaks known"


def empty_caches_but_the_page_history(caches: Path) -> None:
    from handbook.execution import page_history

    for entry in caches.iterdir():
        if entry.name != page_history.FILE_NAME:
            shutil.rmtree(entry) if entry.is_dir() and not entry.is_symlink() else entry.unlink()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--page", default="tensors.md", help="the page whose block is edited in phase 4")
    args = parser.parse_args()

    work = Path(tempfile.mkdtemp(prefix="handbook-bench-"))
    root = work / "tree"
    for name in COPIED:
        source = REPO / name
        (shutil.copytree if source.is_dir() else shutil.copy2)(source, root / name)
    caches = work / "cache"
    os.environ["HANDBOOK_CACHE_DIR"] = str(caches)
    for variable in ("TORCHINDUCTOR_CACHE_DIR", "TORCH_EXTENSIONS_DIR"):
        os.environ.pop(variable, None)
    sys.path.insert(0, str(REPO))
    import logging

    logging.getLogger("mkdocs").setLevel(logging.WARNING)
    memory = PeakMemory()
    memory.start()

    os.environ["HANDBOOK_EXECUTE"] = "0"
    memory.phase = "render-only build"
    render = build(root)
    os.environ["HANDBOOK_EXECUTE"] = "1"
    memory.phase = "clean build"
    clean = build(root)
    memory.phase = "no-change rebuild"
    nochange = build(root)
    edit_one_block(root, args.page)
    memory.phase = f"rebuild after editing {args.page}"
    edited = build(root)
    memory.phase = "make serve"
    reload_prose, reload_snippet = reload_seconds(root, args.page, work / "serve.log")
    memory.phase = "render-only build, caches warm"
    render_warm = render_only_seconds(root)
    empty_caches_but_the_page_history(caches)
    memory.phase = KNOWN_PEAKS
    known = build(root)
    shutil.rmtree(caches, ignore_errors=True)
    pages = serial_page_seconds(root, memory)
    memory.running = False
    memory.join()

    serial = sum(pages.values())

    def peak(phase: str | None) -> str:
        return f"{memory.phase_peaks[phase] / 2**20:.0f}" if phase in memory.phase_peaks else ""

    rows = [  # (measurement, seconds, the phase whose peak memory it shows)
        ("render-only build (no execution), empty caches", render, "render-only build"),
        ("render-only build, caches warm, own process", render_warm, "render-only build, caches warm"),
        ("serial execution, sum over pages", serial, None),
        ("clean build (empty caches)", clean, "clean build"),
        ("clean build, page peaks known", known, KNOWN_PEAKS),
        ("no-change rebuild", nochange, "no-change rebuild"),
        (f"rebuild after editing {args.page}", edited, f"rebuild after editing {args.page}"),
        (f"make serve: prose edit of {args.page} shown", reload_prose, None),
        (f"make serve: snippet edit of {args.page} shown", reload_snippet, "make serve"),
        (f"  {args.page} own execution", pages[args.page], None),
    ]
    print(f"{'measurement':<44}{'seconds':>10}{'peak MiB':>10}")
    for name, value, phase in rows:
        print(f"{name:<44}{value:>10.2f}{peak(phase):>10}")
    print("\nper page, serial execution:")
    for page, value in sorted(pages.items(), key=lambda item: -item[1]):
        print(f"  {page:<42}{value:>10.2f}{peak(f'serial execution of {page}'):>10}")
    from handbook.execution.runner import limits

    chosen = limits()
    print(
        f"\npages at once: {chosen.workers}, each limited to {chosen.page_memory / 2**30:.1f} GiB "
        f"({chosen.page_memory_source})"
    )
    print(
        f"cores: {os.cpu_count()}  peak memory of the build process tree: {memory.peak_pss / 2**20:.0f} MiB"
        f" (resident sizes summed per process: {memory.peak_rss / 2**20:.0f} MiB)"
    )
    holders = ", ".join(f"{size / 2**20:.0f} MiB {command}" for size, command in memory.peak_holders)
    print(f"the peak was during the {memory.peak_phase}; largest processes then: {holders}")
    print(f"peak_mib: {memory.peak_pss / 2**20:.0f}")
    print(f"peak_rss_sum_mib: {memory.peak_rss / 2**20:.0f}")
    print(f"nochange_over_render: {nochange / render:.2f}")
    print(f"clean_over_limit: {clean / (serial + render):.2f}")
    print(f"edit_over_page: {edited / (pages[args.page] + render):.2f}")
    heaviest = max(pages, key=lambda page: memory.phase_peaks.get(f"serial execution of {page}", 0))
    heaviest_peak = memory.phase_peaks[f"serial execution of {heaviest}"]
    print(f"render_s: {render_warm:.2f}  (caches warm, own process; empty caches, in this process: {render:.2f})")
    print(f"reload_prose_s: {reload_prose:.2f}")
    print(f"reload_snippet_s: {reload_snippet:.2f}")
    print(f"reload_snippet_goal_s: {pages[args.page] + 3:.2f}  ({args.page} run alone, + 3 s)")
    print(
        f"peak_over_heaviest: {memory.phase_peaks[KNOWN_PEAKS] / heaviest_peak:.2f}  "
        f"({KNOWN_PEAKS} {peak(KNOWN_PEAKS)} MiB; heaviest page alone: {heaviest}, {heaviest_peak / 2**20:.0f} MiB; "
        f"the first clean build, no peaks known: {memory.phase_peaks['clean build'] / heaviest_peak:.2f})"
    )
    shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
