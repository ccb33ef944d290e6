"""The link crawler (tests/site_links.py) on a tiny site written here: it finds each broken link
and anchor, and follows a notebook's links into the site. The built site's own links:
tests/site/test_built_site_links.py."""

from __future__ import annotations

from pathlib import Path

import nbformat
import pytest
from site_links import Site, report


def write(root: Path, relative: str, text: str) -> None:
    path = root / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


@pytest.fixture
def tiny_site(tmp_path):
    root = tmp_path / "site"
    write(
        root,
        "index.html",
        '<link href="assets/s.css" rel="stylesheet"><h1 id="top">Home</h1>'
        '<a href="page/">fine</a> <a href="page/#there">fine anchor</a> <a href="#top">fine here</a>'
        '<a href="gone/">broken link</a> <a href="page/#nowhere">broken anchor</a>'
        '<a href="https://example.org/x">external</a> <a href="mailto:a@b">mail</a>'
        '<a href="notebooks/page.ipynb" download>notebook</a> <script src="assets/missing.js"></script>'
        '<a href="/handbook/page/">from the server root</a> <a href="/elsewhere/">outside the path</a>'
        '<a href="https://site.example/handbook/page/#there">own address</a>',
    )
    write(root, "assets/s.css", "")
    write(root, "page/index.html", '<h2 id="there">There</h2><a name="old">old</a><a href="../#top">back</a>')
    notebook = nbformat.v4.new_notebook(
        cells=[
            nbformat.v4.new_markdown_cell(
                "See [there](https://site.example/handbook/2.13/page/#there), [gone]"
                "(https://site.example/handbook/2.13/page/#gone) and [PyTorch](https://pytorch.org)."
            ),
            nbformat.v4.new_code_cell("print('[not](a-link.md)')"),
        ]
    )
    write(root, "notebooks/page.ipynb", nbformat.writes(notebook))
    return root


def test_the_crawler_finds_each_broken_link_and_anchor_and_only_those(tiny_site):
    site = Site(tiny_site, "https://site.example/handbook/")
    broken = site.crawl()
    assert sorted((b.page, b.target) for b in broken) == [
        ("index.html", "/elsewhere/"),
        ("index.html", "assets/missing.js"),
        ("index.html", "gone/"),
        ("index.html", "page/#nowhere"),
    ]
    reasons = {b.target: b.reason for b in broken}
    assert reasons["gone/"] == "no such file in the site"
    assert reasons["page/#nowhere"] == "no element with id 'nowhere' on page/index.html"
    assert "index.html: gone/ (no such file in the site)" in report(broken)


def test_the_crawler_checks_the_notebooks_links_into_the_site(tiny_site):
    site = Site(tiny_site, "https://site.example/handbook/")
    broken = site.crawl_notebooks("https://site.example/handbook/2.13/")
    assert [(b.page, b.target, b.reason) for b in broken] == [
        ("notebooks/page.ipynb, cell 0", "page/#gone", "no element with id 'gone' on page/index.html")
    ]
    relative = tiny_site / "notebooks/relative.ipynb"
    cell = nbformat.v4.new_markdown_cell("[ok](../page/#there) [bad](../missing/)")
    relative.write_text(nbformat.writes(nbformat.v4.new_notebook(cells=[cell])))
    broken = Site(tiny_site).crawl_notebooks("../")
    assert [(b.page, b.target) for b in broken if "relative" in b.page] == [
        ("notebooks/relative.ipynb, cell 0", "../missing/")
    ]


def test_without_a_site_url_root_paths_are_the_servers_root(tiny_site):
    broken = Site(tiny_site).crawl()
    assert ("index.html", "/handbook/page/") in {(b.page, b.target) for b in broken}
