"""No broken link on the built site: every internal `href`/`src` of every page names a file of
the site, every `#fragment` an id on its page, and the chapter notebooks' links into the site
do the same (tests/site_links.py). External links are not followed."""

from __future__ import annotations

from pathlib import Path

import pytest
from site_browser import EDITION_SITES, stale
from site_links import Site, report

from handbook.mkdocs_config import load_site_config
from handbook.notebooks import link_base

REPO = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("release", sorted(EDITION_SITES))
def test_every_link_of_each_edition_resolves(release):
    """The site the strict build of each edition wrote (`make test` builds every edition first)."""
    root = EDITION_SITES[release]
    problem = stale(root)
    assert problem is None, problem
    site_url = load_site_config(REPO / "mkdocs.yml").site_url
    site = Site(root, site_url, elsewhere=(load_site_config(REPO / "mkdocs.zh.yml").site_url,))
    broken = site.crawl()
    assert site.checked > 1000, f"only {site.checked} links checked: is {root} a whole site?"
    notebooks = site.notebooks()
    assert notebooks, f"no notebook in {root}"
    pages_checked = site.checked
    broken += site.crawl_notebooks(link_base(site_url, release))
    assert site.checked > pages_checked, "no notebook links into the site"
    assert not broken, report(broken)
