"""A link crawler over a built site (tests/site/test_built_site_links.py; the crawler's own tests are
tests/unit/test_site_links.py).

Every internal `href` and `src` of every HTML page must name a file of the site, and every
`#fragment` an element id on the page it names; the links of the chapter notebooks' text
cells are held to the same, where they point into the site. External links are not followed.

    python tests/site_links.py site [https://site.example/handbook/]

prints every broken link, with its page, and exits 1 if there is any.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urljoin, urlsplit

import nbformat
from markdown_it import MarkdownIt

# The attributes that link or load: (element, attribute).
LINKING = {
    ("a", "href"),
    ("area", "href"),
    ("link", "href"),
    ("script", "src"),
    ("img", "src"),
    ("iframe", "src"),
    ("source", "src"),
    ("audio", "src"),
    ("video", "src"),
    ("video", "poster"),
    ("track", "src"),
    ("embed", "src"),
}
ORIGIN = "http://site.invalid"  # where the crawler pretends the site is, to resolve relative links


@dataclass(frozen=True)
class Broken:
    page: str  # the page (or notebook cell) the link is on
    target: str  # the link as written
    reason: str

    def __str__(self) -> str:
        return f"{self.page}: {self.target} ({self.reason})"


class _Page(HTMLParser):
    """A page's element ids and its links, in one pass of the standard library's parser."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.ids: set[str] = set()
        self.links: list[str] = []

    def handle_starttag(self, tag, attrs):
        for name, value in attrs:
            if value is None:
                continue
            if name == "id" or (tag == "a" and name == "name"):
                self.ids.add(value)
            elif (tag, name) in LINKING:
                self.links.append(value)

    handle_startendtag = handle_starttag


def _parsed(html: str) -> _Page:
    page = _Page()
    page.feed(html)
    page.close()
    return page


class Site:
    """A built site on disk. `site_url` (the configured one) makes its absolute addresses, and
    paths under its path (Material writes them on 404.html), links into the site too."""

    def __init__(self, root: Path, site_url: str | None = None, elsewhere: tuple[str, ...] = ()):
        self.root = root
        # Addresses under this site's that another build publishes (the other language's site, under
        # `zh/`): not files of this site, and checked where both are deployed (tests/site/test_versions_deploy.py).
        self.elsewhere = elsewhere
        self.site_url = site_url if not site_url or site_url.endswith("/") else site_url + "/"
        self.root_path = urlsplit(self.site_url).path if self.site_url else "/"
        self._pages: dict[Path, _Page] = {}
        self.checked = 0  # the links into the site checked so far

    def page(self, path: Path) -> _Page:
        if path not in self._pages:
            self._pages[path] = _parsed(path.read_text(encoding="utf-8", errors="replace"))
        return self._pages[path]

    def html_pages(self) -> list[Path]:
        return sorted(self.root.rglob("*.html"))

    def crawl(self) -> list[Broken]:
        """Every broken link of every HTML page."""
        broken = []
        for path in self.html_pages():
            where = path.relative_to(self.root).as_posix()
            for link in self.page(path).links:
                problem = self.check(link, where)
                if problem:
                    broken.append(Broken(where, link, problem))
        return broken

    def check(self, link: str, where: str) -> str | None:
        """Why `link`, on the page at site path `where`, is broken; None if it is not (or is external)."""
        link = link.strip()
        if link.startswith(self.elsewhere) if self.elsewhere else False:
            return None
        if self.site_url and link.startswith(self.site_url):  # the site's own absolute address
            link = self.root_path + link[len(self.site_url) :]
        url = urlsplit(urljoin(f"{ORIGIN}/{where}", link))
        if f"{url.scheme}://{url.netloc}" != ORIGIN:
            return None  # another site: not followed
        self.checked += 1
        path, fragment = unquote(url.path), unquote(url.fragment)
        if link.startswith("/"):  # from the server's root: the site is served under its path
            if not path.startswith(self.root_path):
                return f"outside the site's path {self.root_path}"
            path = "/" + path[len(self.root_path) :]
        target = self.root / path.lstrip("/")
        if path.endswith("/") or target.is_dir():
            target = target / "index.html"
        if not target.is_file():
            return "no such file in the site"
        if not fragment or fragment.startswith(":~:"):  # no fragment, or a text fragment
            return None
        if target.suffix != ".html":
            return "a fragment on a file that is not a page"
        if fragment not in self.page(target).ids:
            return f"no element with id {fragment!r} on {target.relative_to(self.root).as_posix()}"
        return None

    def notebooks(self) -> list[Path]:
        return sorted(self.root.rglob("*.ipynb"))

    def crawl_notebooks(self, base: str) -> list[Broken]:
        """Every broken link into the site from the notebooks' text cells. `base` is where their
        links say the site is (`notebooks.link_base`): an absolute address, or relative to the notebook."""
        renderer = MarkdownIt("commonmark")
        broken = []
        for path in self.notebooks():
            where = path.relative_to(self.root).as_posix()
            notebook = nbformat.read(path, as_version=4)
            for number, cell in enumerate(notebook.cells):
                if cell.cell_type != "markdown":
                    continue
                for link in _parsed(renderer.render(cell.source)).links:
                    if base.startswith(("http://", "https://")):
                        if not link.startswith(base):
                            continue
                        link, page = link[len(base) :], "index.html"  # as if from the site's root
                    else:
                        page = where
                    problem = self.check(link, page)
                    if problem:
                        broken.append(Broken(f"{where}, cell {number}", link, problem))
        return broken


def report(broken: list[Broken]) -> str:
    return f"{len(broken)} broken link(s):\n" + "\n".join(f"  {b}" for b in broken)


if __name__ == "__main__":
    site = Site(Path(sys.argv[1]), sys.argv[2] if len(sys.argv) > 2 else None)
    found = site.crawl()
    print(report(found) if found else "no broken link")
    sys.exit(1 if found else 0)
