"""Each executed block's run time against its timeout, from built sites' execution reports.

`make test` prints this at its end, for the editions it built side by side: the run times are
those of a loaded machine, the case a timeout must cover. A block should use at most half of
its timeout; one that uses more is made cheaper, or given a larger `timeout=` with the reason
beside it in its snippet. Only blocks run in these builds count (a cached run's seconds are an
earlier build's). A report, not a test: run times depend on the machine and its load.

    python tools/headroom.py SITE [SITE ...]
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

HALF = 0.5
SHOWN = 5


def shares(sites: list[Path]) -> list[tuple[float, str]]:
    found = []
    for site in sites:
        report = json.loads((site / "execution-report.json").read_text(encoding="utf-8"))
        for block in report["blocks"]:
            if block["status"] == "ok" and block.get("timeout"):
                where = f"torch {report['torch']}: docs/{block['page']}, block {block['id']} ({block['source']})"
                found.append(
                    (block["seconds"] / block["timeout"], f"{block['seconds']:.1f} of {block['timeout']:g} s  {where}")
                )
    return sorted(found, reverse=True)


def main(arguments: list[str]) -> int:
    found = shares([Path(argument) for argument in arguments])
    if not found:
        print("headroom: no block ran in these builds (every run came from the cache)")
        return 0
    over = [line for share, line in found if share > HALF]
    print(f"headroom: the largest shares of a block's timeout among {len(found)} blocks run ({len(over)} above half):")
    for share, line in found[:SHOWN]:
        print(f"  {share:6.1%}  {line}")
    for line in over[SHOWN:]:
        print(f"  above half: {line}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
