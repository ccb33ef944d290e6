"""Run a command, then fail if anything it started is still running: `python tools/contained.py CMD...`.

`make test` runs its builds and tests through this. A build must leave nothing behind
(a page's daemon, a compiler, the zygote): a process that outlives it keeps the build's
output pipe open, and CI then waits for it until its own time runs out, with nothing
said. This process is a subreaper, so whatever the command leaves comes here whatever
its parents did; a survivor is named, killed, and fails the run. Linux only: elsewhere
only the command's own status counts.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time

from handbook.execution import processes

GRACE_SECONDS = 10.0  # for processes still ending when the command exits (a zygote ending its pages)


def main(command: list[str]) -> int:
    if not command:
        print("usage: contained.py COMMAND [ARGUMENT...]", file=sys.stderr)
        return 2
    processes.become_subreaper()
    code = subprocess.call(command)
    deadline = time.monotonic() + GRACE_SECONDS
    while (left := processes.descendants(os.getpid())) and time.monotonic() < deadline:
        processes.reap_children()
        time.sleep(0.1)
    if not left:
        return code
    names = [processes.describe(process) for process in left]
    processes.end_descendants(os.getpid())
    processes.reap_children()
    print(f"error: `{' '.join(command)}` left {len(names)} process(es) running, now killed:", file=sys.stderr)
    for name in names:
        print(f"  {name}", file=sys.stderr)
    return code or 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
