"""`make steadiness`: a hunt for outputs that vary between runs, so that a red build means "torch changed".

Runs every page of the installed torch's edition several times with the execution cache
off, each run under other conditions a reader's or a contributor's machine may be in, and
compares every block between the runs (measured values by their claims, not their digits)
and with its recording. Every run sets a random PYTHONHASHSEED in the build's environment.

  locale and time zone   LANG=zh_CN.UTF-8, LC_ALL=zh_CN.UTF-8, TZ=Asia/Shanghai (the Chinese readers')
  busy, elsewhere        two busy loops beside the build, a long TMPDIR, another working directory
  one core, memory held  pinned to one core (taskset), another process holding most of the free memory

Reports each block whose output or status differed between any two runs (page, block,
`file:line`, the differing lines), each block that differs from its recording in every run,
and each block's run time against its timeout (the largest ratios, and any above half).
Writes the whole report to .cache/steadiness/<edition>.json. Exits 1 if any block varied or
failed. Takes three builds' time or more (about 40 minutes an edition on 2 cores):
a CI job, not part of `make test`.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BUSY_LOOP = "while True: pass"
MEMORY_HELD = 0.6  # of the memory available when the run starts
HALF = 0.5  # a block may use at most this share of its timeout (issue: headroom against timeouts)
DIFF_LINES = 30


@dataclass
class Condition:
    name: str
    environment: dict[str, str] = field(default_factory=dict)
    prefix: list[str] = field(default_factory=list)  # e.g. taskset
    busy_loops: int = 0
    hold_memory: bool = False
    long_tmpdir: bool = False
    elsewhere: bool = False  # run from another working directory


def conditions() -> list[Condition]:
    one_core = []
    if shutil.which("taskset") and hasattr(os, "sched_getaffinity"):
        one_core = ["taskset", "-c", str(min(os.sched_getaffinity(0)))]
    else:
        print("taskset is not on PATH: the one-core run is not pinned", file=sys.stderr)
    return [
        Condition("locale and time zone", {"LANG": "zh_CN.UTF-8", "LC_ALL": "zh_CN.UTF-8", "TZ": "Asia/Shanghai"}),
        Condition("busy, elsewhere", busy_loops=2, long_tmpdir=True, elsewhere=True),
        Condition("one core, memory held", prefix=one_core, hold_memory=True),
    ]


@contextlib.contextmanager
def busy(loops: int) -> Iterator[None]:
    spinners = [subprocess.Popen([sys.executable, "-c", BUSY_LOOP]) for _ in range(loops)]
    try:
        yield
    finally:
        for spinner in spinners:
            spinner.kill()
            spinner.wait()


HOLD = """
import sys, time, psutil
size = int(psutil.virtual_memory().available * float(sys.argv[1]))
held = bytearray(size)
held[::4096] = b"\\x01" * len(range(0, size, 4096))  # every page touched, so resident
print(size, flush=True)
time.sleep(86400)
"""


@contextlib.contextmanager
def memory_held(hold: bool) -> Iterator[int]:
    if not hold:
        yield 0
        return
    holder = subprocess.Popen([sys.executable, "-c", HOLD, str(MEMORY_HELD)], stdout=subprocess.PIPE, text=True)
    try:
        yield int(holder.stdout.readline() or 0)
    finally:
        holder.kill()
        holder.wait()


def run_once(condition: Condition, index: int, out: Path, root: Path, pages: list[str]) -> float:
    """One run of every page under `condition`, its blocks written to `out`; its seconds."""
    environment = {**os.environ, "PYTHONHASHSEED": str(random.randrange(1, 2**32)), **condition.environment}
    work = Path(tempfile.mkdtemp(prefix=f"steadiness-{index}-"))
    if condition.long_tmpdir:
        deep = work / ("a-temporary-directory-with-a-long-name-" * 3).rstrip("-") / "and-one-more-level"
        deep.mkdir(parents=True)
        environment["TMPDIR"] = str(deep)
    cwd = work if condition.elsewhere else root
    command = [*condition.prefix, sys.executable, str(Path(__file__).resolve()), "--root", str(root)]
    command += ["--one-run", str(out)]
    command += [argument for page in pages for argument in ("--page", page)]
    print(f"--- run {index + 1}: {condition.name}", flush=True)
    started = time.perf_counter()
    try:
        with busy(condition.busy_loops), memory_held(condition.hold_memory) as held:
            if held:
                print(f"    another process holds {held / 2**30:.1f} GiB", flush=True)
            subprocess.run(command, cwd=cwd, env=environment, check=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return time.perf_counter() - started


def one_run(out: Path, root: Path, pages: list[str]) -> None:
    """Inside a run: every page executed with the cache off; each block's result as JSON."""
    sys.path.insert(0, str(ROOT))
    from handbook.execution.pipeline import execute
    from handbook.execution.runner import block_timeout

    site = execute(root, cache_enabled=False, only=set(pages) or None)
    blocks = [
        {
            "page": r.block.page,
            "id": r.block.id,
            "source": r.block.origin,
            "status": r.status.value,
            "passes": r.status.passes,
            "output": r.output,
            "error": r.error,
            "figure": r.figure,
            "seconds": r.seconds,
            "timeout": block_timeout(r.block.options),
        }
        for r in site.all_results()
    ]
    out.write_text(json.dumps({"torch": site.environment.torch, "blocks": blocks}), encoding="utf-8")


def diff(first: str, second: str) -> list[str]:
    import difflib

    lines = list(difflib.unified_diff(first.splitlines(), second.splitlines(), lineterm="", n=1))[2:]
    return lines[:DIFF_LINES] + ([f"... ({len(lines) - DIFF_LINES} more lines)"] if len(lines) > DIFF_LINES else [])


def compare(runs: list[dict], names: list[str]) -> dict:
    """Blocks that varied between runs, blocks that failed in every run, and each block's largest share
    of its timeout."""
    from handbook.execution.measurements import masked

    by_block: dict[tuple[str, str], list[dict]] = {}
    for run in runs:
        for block in run["blocks"]:
            by_block.setdefault((block["page"], block["id"]), []).append(block)
    varying, failing, headroom = [], [], []
    skipped: dict[str, int] = {}  # page -> blocks that did not run in some run, after a block of it failed
    for (page, block_id), seen in by_block.items():
        where = {"page": page, "id": block_id, "source": seen[0]["source"]}
        outputs = [masked(b["output"]) for b in seen]
        statuses = ["passes" if b["passes"] else b["status"] for b in seen]
        figures = [b["figure"] for b in seen]
        if set(statuses) == {"passes", "not-run"}:  # not a cause: an earlier block of its page failed
            skipped[page] = skipped.get(page, 0) + 1
        elif len(set(outputs)) > 1 or len(set(statuses)) > 1 or len(set(figures)) > 1:
            other = next((i for i, o in enumerate(outputs) if o != outputs[0]), None)
            if other is not None:
                differs = diff(outputs[0], outputs[other])
            elif len(set(statuses)) > 1:
                failed = next(b for b in seen if not b["passes"])
                differs = failed["error"].splitlines()[:DIFF_LINES]
            else:
                differs = ["the figure differs"]
            varying.append({**where, "runs": dict(zip(names, statuses, strict=True)), "differs": differs})
        elif not seen[0]["passes"]:
            failing.append({**where, "status": seen[0]["status"], "error": seen[0]["error"][:2000]})
        ratios = [b["seconds"] / b["timeout"] for b in seen if b["timeout"]]
        if ratios:
            headroom.append({**where, "largest_share_of_timeout": round(max(ratios), 3), "timeout": seen[0]["timeout"]})
    headroom.sort(key=lambda entry: entry["largest_share_of_timeout"], reverse=True)
    for entry in varying:
        entry["later_blocks_not_run"] = skipped.pop(entry["page"], 0)
    return {"varying": varying, "failing": failing, "headroom": headroom}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--one-run", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--runs", type=int, default=3, help="how many runs (the conditions repeat in turn)")
    parser.add_argument("--root", type=lambda text: Path(text).resolve(), default=ROOT, help="the handbook's directory")
    parser.add_argument("--page", action="append", default=[], help="only this page (under docs/); may repeat")
    args = parser.parse_args()
    if args.one_run:
        one_run(args.one_run, args.root, args.page)
        return 0
    ways = conditions()
    chosen = [ways[i % len(ways)] for i in range(args.runs)]
    results_dir = Path(tempfile.mkdtemp(prefix="steadiness-runs-"))
    runs, seconds = [], []
    try:
        for index, condition in enumerate(chosen):
            out = results_dir / f"{index}.json"
            seconds.append(run_once(condition, index, out, args.root, args.page))
            runs.append(json.loads(out.read_text(encoding="utf-8")))
    finally:
        shutil.rmtree(results_dir, ignore_errors=True)
    names = [f"{i + 1}: {c.name}" for i, c in enumerate(chosen)]
    timings = dict(zip(names, [round(s, 1) for s in seconds], strict=True))
    report = {"torch": runs[0]["torch"], "runs": timings, **compare(runs, names)}
    edition = runs[0]["torch"]
    path = args.root / ".cache" / "steadiness" / f"{edition}.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(report, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    print_report(report, path)
    return 1 if report["varying"] or report["failing"] else 0


def print_report(report: dict, path: Path) -> None:
    blocks = len(report["headroom"])
    print(f"\nsteadiness of torch {report['torch']}: {len(report['runs'])} runs with the execution cache off")
    for name, seconds in report["runs"].items():
        print(f"  run {name:<28} {seconds:7.1f} s")
    print(f"{len(report['varying'])} varying block(s), {len(report['failing'])} failing in every run, of {blocks}")
    for entry in report["varying"]:
        print(f"\nVARIES  docs/{entry['page']}, block {entry['id']} ({entry['source']})")
        for name, status in entry["runs"].items():
            print(f"    run {name}: {status}")
        if entry.get("later_blocks_not_run"):
            print(f"    ({entry['later_blocks_not_run']} later block(s) of the page did not run where it failed)")
        print("\n".join("    " + line for line in entry["differs"]))
    for entry in report["failing"]:
        print(f"\nFAILS   docs/{entry['page']}, block {entry['id']} ({entry['source']}): {entry['status']}")
        print("\n".join("    " + line for line in entry["error"].splitlines()[:DIFF_LINES]))
    over = [entry for entry in report["headroom"] if entry["largest_share_of_timeout"] > HALF]
    print(f"\nrun time against timeout, the largest of {blocks} blocks (more than {HALF:.0%}: {len(over)}):")
    for entry in report["headroom"][:10]:
        print(
            f"  {entry['largest_share_of_timeout']:6.1%} of {entry['timeout']:g} s  docs/{entry['page']}, "
            f"block {entry['id']} ({entry['source']})"
        )
    print(f"report: {path}")


if __name__ == "__main__":
    sys.exit(main())
