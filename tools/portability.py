"""`make portability`: every page built five ways with the execution cache off, each against the recordings.

What a page prints must not depend on the machine (CONTRIBUTING.md, "Measured values"). This
machine stands in for others in five ways: as it is; with `ATEN_CPU_CAPABILITY=default`
(a CPU without AVX2, the nearest stand-in here for arm64); with
`ATEN_CPU_CAPABILITY=avx2` (an AVX-512 CPU held to AVX2); with every core kept busy
by other processes; and pinned to one core. Each is a strict build that fails on
any drift or broken claim. Prints each build's time and result; exits 1 if any failed.
Run by the CI workflow's portability job (too slow for `make test`).

`--page attention.md` (may repeat; `make portability PAGES="attention.md func.md"`) runs the execute
step on those pages alone the same five ways, with no site rendered, and names each block that
failed: a new chapter's check in minutes rather than the whole site's in an hour.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BUSY_LOOP = "while True: pass"


@contextlib.contextmanager
def busy_cores() -> Iterator[None]:
    """One spinning process per core for as long as the block runs."""
    spinners = [subprocess.Popen([sys.executable, "-c", BUSY_LOOP]) for _ in range(os.cpu_count() or 1)]
    try:
        yield
    finally:
        for spinner in spinners:
            spinner.kill()
            spinner.wait()


def ways() -> list[tuple[str, dict[str, str], list[str], bool]]:
    """(name, environment, command prefix, busy) of each build."""
    one_core = None
    if shutil.which("taskset") and hasattr(os, "sched_getaffinity"):
        one_core = ["taskset", "-c", str(min(os.sched_getaffinity(0)))]
    found = [
        ("plain", {}, [], False),
        ("ATEN_CPU_CAPABILITY=default", {"ATEN_CPU_CAPABILITY": "default"}, [], False),
        ("ATEN_CPU_CAPABILITY=avx2", {"ATEN_CPU_CAPABILITY": "avx2"}, [], False),
        ("every core busy", {}, [], True),
    ]
    if one_core:
        found.append(("one core (taskset -c)", {}, one_core, False))
    else:
        print("taskset is not on PATH: the one-core build is left out", file=sys.stderr)
    return found


def build(
    name: str, environment: dict[str, str], prefix: list[str], busy: bool, index: int, root: Path, pages: list[str]
) -> tuple[float, int]:
    site = root / ".cache" / "portability" / f"site-{index}"
    command = [*prefix, sys.executable, "-m", "mkdocs", "build", "--strict", "--quiet", "--site-dir", str(site)]
    if pages:
        command = [*prefix, sys.executable, str(Path(__file__).resolve()), "--root", str(root)]
        command += [argument for page in pages for argument in ("--execute-only", page)]
    env = {**os.environ, "HANDBOOK_CACHE": "0", **environment}
    print(f"--- {name}: {' '.join(f'{k}={v}' for k, v in environment.items())} {' '.join(command)}", flush=True)
    started = time.perf_counter()
    with busy_cores() if busy else contextlib.nullcontext():
        returncode = subprocess.run(command, cwd=root, env=env).returncode
    return time.perf_counter() - started, returncode


def execute_only(root: Path, pages: list[str]) -> int:
    """Inside one way: the execute step on `pages` alone, cache off; each block that failed, named."""
    sys.path.insert(0, str(ROOT))
    from handbook.execution.pipeline import execute

    site = execute(root, cache_enabled=False, only=set(pages))
    ran = site.all_results()
    for result in site.failures():
        print(
            f"FAILED  docs/{result.block.page}, block {result.block.id} ({result.block.origin}): {result.status.value}"
        )
        print("\n".join("    " + line for line in (result.error or "").splitlines()[:20]))
    print(f"{len(ran)} blocks of {len(site.pages)} page(s), {len(site.failures())} failed", flush=True)
    return 1 if site.failures() or not ran else 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--page", action="append", default=[], help="only this page (under docs/), execute step only")
    parser.add_argument("--root", type=lambda text: Path(text).resolve(), default=ROOT, help="the handbook's directory")
    parser.add_argument("--execute-only", action="append", default=[], help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.execute_only:
        return execute_only(args.root, args.execute_only)
    results = [
        (name, *build(name, env, prefix, busy, n, args.root, args.page))
        for n, (name, env, prefix, busy) in enumerate(ways())
    ]
    print("\nportability builds (execution cache off), each against the recordings:")
    for name, seconds, returncode in results:
        print(f"  {name:<30} {seconds:7.1f} s  {'ok' if returncode == 0 else f'FAILED (exit {returncode})'}")
    return 1 if any(returncode for _, _, returncode in results) else 0


if __name__ == "__main__":
    sys.exit(main())
