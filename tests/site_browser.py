"""Helpers for the tests that open the built site in a real browser.

Debian's Chromium, driven by Playwright, against the built `site/` served on
localhost. The fixtures built on these (`browser`, `site_url`) are in conftest.py.
"""

from __future__ import annotations

import contextlib
import functools
import http.server
import json
import shutil
import subprocess
import threading
from pathlib import Path
from urllib.parse import urlparse

from handbook.environment import installed_torch
from handbook.execution.tree_guard import tree_digest
from handbook.releases import recorded_releases

REPO = Path(__file__).resolve().parent.parent
SITE = REPO / "site"
# Where `make test` has each edition's strict build write its site (the Makefile's SITE): the
# installed torch's in site/, every other in .cache/site-<release>.
EDITION_SITES = {
    release: SITE if release == installed_torch().release else REPO / f".cache/site-{release}"
    for release in recorded_releases(REPO)
}
ARTIFACTS = REPO / "test-artifacts"
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
NARROW = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True}


# The axe findings that fail a test, and the contrast the keyboard tests measure focus rings by.
BLOCKING = {"serious", "critical"}


def blocking_report(found: dict[str, list[dict]]) -> list[str]:
    """One line per page and serious or critical rule: how many elements, and one of them."""
    lines = []
    for path, violations in found.items():
        for violation in violations:
            if violation["impact"] in BLOCKING:
                node = violation["nodes"][0]
                why = node["summary"].splitlines()[1].strip() if "\n" in node["summary"] else node["summary"]
                lines.append(
                    f"/{path}: {violation['rule']} ({violation['impact']}) on {len(violation['nodes'])} "
                    f"element(s), e.g. {node['target']}: {why}"
                )
    return lines


def contrast(colour: list[float], around: list[float]) -> float:
    """WCAG contrast ratio of an RGBA colour drawn over an opaque RGB one."""
    alpha = colour[3] if len(colour) > 3 else 1
    drawn = [c * alpha + a * (1 - alpha) for c, a in zip(colour[:3], around, strict=True)]

    def luminance(rgb):
        linear = [(v / 255) / 12.92 if v / 255 <= 0.04045 else ((v / 255 + 0.055) / 1.055) ** 2.4 for v in rgb]
        return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]

    high, low = sorted((luminance(drawn), luminance(around)), reverse=True)
    return (high + 0.05) / (low + 0.05)


def ensure_chromium() -> str | None:
    """Install Debian's chromium if it is missing; the reason it cannot be, or None."""
    if Path(CHROMIUM).exists():
        return None
    if shutil.which("apt-get") is None:
        return "no apt-get to install Debian's chromium"
    install = "apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium"
    result = subprocess.run(["bash", "-c", install], capture_output=True, text=True)
    if result.returncode != 0 or not Path(CHROMIUM).exists():
        return f"Debian's chromium could not be installed: {result.stderr[-300:]}"
    return None


class QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


def serve(directory: Path):
    """An HTTP server for `directory` on a free localhost port, in a daemon thread."""
    handler = functools.partial(QuietHandler, directory=str(directory))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


@contextlib.contextmanager
def served_site(site: Path):
    """The address of `site` served on localhost, once it is known to be the tree's own build."""
    problem = stale(site)
    assert problem is None, problem
    server = serve(site)
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()


def screenshot(page, name: str) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"), full_page=False)


# Records what the page's Content-Security-Policy blocks, from before any of its scripts run.
CSP_LISTENER = """
window.__blocked = [];
document.addEventListener("securitypolicyviolation", (event) => {
  const where = `${event.sourceFile}:${event.lineNumber}`;
  window.__blocked.push(`${event.effectiveDirective} blocked ${event.blockedURI || "inline"} (${where})`);
});
"""


def site_pages(site: Path = SITE) -> list[str]:
    """Every page of a built site, as a URL path under its root ("" for the home page)."""
    return sorted(
        ("" if path.parent == site else path.parent.relative_to(site).as_posix() + "/")
        for path in site.rglob("index.html")
    )


def requests_outside(page, site_url: str) -> list[str]:
    """The addresses `page` requests from now on outside the site at `site_url` (data: URLs are inside),
    in a list that grows as it loads."""
    site = urlparse(site_url).netloc
    outside: list[str] = []

    def seen(request) -> None:
        if urlparse(request.url).netloc not in {site, ""} and not request.url.startswith("data:"):
            outside.append(request.url)

    page.on("request", seen)
    return outside


def blocked_by_policy(page) -> list[str]:
    """What the Content-Security-Policy blocked on `page`, whose context has CSP_LISTENER."""
    return page.evaluate("window.__blocked || []")


def stale(site: Path = SITE, root: Path = REPO) -> str | None:
    """Why `site` cannot be tested as the tree's site: missing, or built from another state of the
    tree (its execution report records the tree it was built from); None when it is fresh."""
    report = site / "execution-report.json"
    name = site.relative_to(root) if site.is_relative_to(root) else site
    if not report.is_file():
        return f"{name}/ is missing or unfinished: build it first (`make test` builds every edition before the tests)"
    if json.loads(report.read_text()).get("tree") != tree_digest(root):
        return (
            f"{name}/ was built from another state of the tree (docs/, snippets/, recordings/, handbook/, "
            "overrides/, mkdocs.yml have changed since): build it again (`make test` does)"
        )
    return None
