"""The two phases of `make test`, timed: `make test` prints this line at its end.

The build phase is everything before the tests (the environments a fresh clone installs, the
editions built side by side); the test phase, the lint, the tests and the checks after them. A
report, not a test: both depend on the machine and its load; their ratio is what issue 45 tracks.

    python tools/phases.py STARTED BUILT   (files holding `date +%s` at the start and after the builds)
"""

from __future__ import annotations

import sys
import time
from pathlib import Path


def main(arguments: list[str]) -> int:
    started, built = (float(Path(argument).read_text(encoding="utf-8")) for argument in arguments)
    now = time.time()
    build, tests = built - started, now - built
    ratio = f"{tests / build:.2f}" if build > 0 else "n/a"
    total = now - started
    print(f"make test: build phase {build:.0f} s, test phase {tests:.0f} s (test/build {ratio}), {total:.0f} s in all")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
