"""The Chinese edition as a reader meets it: built (site-zh/, each edition's), searched in Chinese,
switched to and from English, accessible, offline, with every link resolving.

`make test` builds it after each English edition (the Makefile's `build`); these tests read those
sites and open them in Chromium.
"""

from __future__ import annotations

import json
from pathlib import Path
from urllib.parse import urlparse

import pytest
from site_browser import (
    ARTIFACTS,
    CSP_LISTENER,
    EDITION_SITES,
    SITE,
    blocked_by_policy,
    blocking_report,
    requests_outside,
    served_site,
    site_pages,
    stale,
)
from site_links import Site, report
from test_accessibility import AXE_CONTEXT, AXE_PAGE_LOAD, run_axe
from test_accessibility import axe_script as axe_script  # a fixture, used by name

from handbook.mkdocs_config import load_site_config
from handbook.notebooks import link_base

REPO = Path(__file__).resolve().parents[2]
ZH_CONFIG = load_site_config(REPO / "mkdocs.zh.yml")
EN_CONFIG = load_site_config(REPO / "mkdocs.yml")


def zh_site_of(english_site: Path) -> Path:
    """Where the Makefile's `build` writes an edition's Chinese site: beside its English one."""
    return english_site.parent / f"{english_site.name}-zh"


ZH_SITE = zh_site_of(SITE)

# A term of each of seven chapters, typed as a reader's input method commits it (the whole word at once), and
# the page and section it must find first. Material's client splits a query with its own segmenter,
# not jieba, so some whole terms match poorly (工作进程 finds Setting up first; CONTRIBUTING.md, "The Chinese
# edition"); these are the glossary's terms of each chapter's main subject.
QUERIES = {
    "步长": ("tensors/", "sizes-strides-and-storage-offset"),
    "版本计数器": ("autograd/", "the-version-counter-and-the-in-place-error"),
    "分发键": ("dispatch/", "the-dispatch-keys-of-a-tensor"),
    "缓存分配器": ("memory/", "the-cuda-caching-allocator-allocated-vs-reserved"),
    "守卫": ("compile/", "guards-when-a-compiled-graph-may-be-reused"),
    # The names Chinese readers search for, which the glossary lists as aliases (亦称) and the chapters
    # use where the concept is introduced.
    "自动求导": ("autograd/", "the-graph-grad_fn-next_functions-accumulategrad"),
    "梯度检查点": ("memory/", "activation-memory-measured-with-saved-tensor-hooks"),
    "多卡": ("distributed/", "two-ranks-on-one-machine"),
    "混合精度": ("mixed-precision/", "where-autocast-sits-in-dispatch"),
    "图中断": ("compile/", "graph-breaks-and-explain"),
}


def test_each_word_added_to_jiebas_dictionary_is_a_query_searched_here():
    """`handbook/jieba-terms-zh.txt` (mkdocs.zh.yml, `jieba_dict_user`) exists for the queries above."""
    words = (REPO / "handbook" / "jieba-terms-zh.txt").read_text(encoding="utf-8").split()
    assert words and set(words) <= set(QUERIES), set(words) - set(QUERIES)


@pytest.fixture(scope="module")
def zh_site_url():
    with served_site(ZH_SITE) as url:
        yield url


@pytest.mark.parametrize("release", sorted(EDITION_SITES))
def test_every_link_of_each_chinese_edition_resolves(release):
    root = zh_site_of(EDITION_SITES[release])
    problem = stale(root)
    assert problem is None, problem
    site = Site(root, ZH_CONFIG.site_url)
    broken = site.crawl()
    assert site.checked > 1000, f"only {site.checked} links checked: is {root} a whole site?"
    assert site.notebooks(), f"no notebook in {root}"
    broken += site.crawl_notebooks(link_base(ZH_CONFIG.site_url, release))
    assert not broken, report(broken)


def test_chinese_pages_are_chinese_and_show_the_english_pages_outputs():
    for page in ("tensors", "autograd", "profiling"):
        english = (SITE / page / "index.html").read_text()
        chinese = (ZH_SITE / page / "index.html").read_text()
        assert '<html lang="zh"' in chinese and '<html lang="en"' in english
        outputs = [part.split("<code>")[1].split("</code>")[0] for part in english.split('class="handbook-output')[1:]]
        ours = [part.split("<code>")[1].split("</code>")[0] for part in chinese.split('class="handbook-output')[1:]]
        assert outputs and ours == outputs, page


def test_the_language_switch_leads_to_the_same_page_in_the_other_language():
    english_url, chinese_url = EN_CONFIG.site_url, ZH_CONFIG.site_url
    for page in ("", "tensors/", "what-changed/", "glossary/"):
        chinese = (ZH_SITE / page / "index.html").read_text()
        english = (SITE / page / "index.html").read_text()
        assert f'href="{english_url}{page}" hreflang="en"' in chinese, page
        assert f'href="{chinese_url}{page}" hreflang="zh"' in english, page


@pytest.mark.parametrize("query", sorted(QUERIES))
def test_chinese_search_ranks_the_right_section_first(browser, zh_site_url, query):
    page_path, section = QUERIES[query]
    context = browser.new_context()
    page = context.new_page()
    page.goto(zh_site_url + "/", wait_until="networkidle")
    page.locator("input[data-md-component='search-query']").click()
    # Material says "type to start searching" (in Chinese) once its index is loaded (fetched on this click:
    # handbook-search.js); a query before that is lost. Waited for by locator: a string predicate that
    # is not true at once is polled with eval, which the site's policy blocks.
    page.locator(".md-search-result__meta", has_text="键入").wait_for()
    # As an input method commits a word: the whole word in one input event, then a key released (Material
    # searches on keyup).
    page.keyboard.insert_text(query)
    page.keyboard.press("End")
    page.wait_for_selector(".md-search-result__item", timeout=15000)
    links = page.locator(".md-search-result__item a")
    hits = [links.nth(index).get_attribute("href") for index in range(min(links.count(), 3))]
    first, first_section = hits[0], next((hit for hit in hits if "#" in hit), "")
    ARTIFACTS.mkdir(exist_ok=True)
    with (ARTIFACTS / "zh-search.txt").open("a") as log:
        log.write(f"{query}\t{first}\t{first_section}\n")
    context.close()
    assert urlparse(first).path == f"/{page_path}", f"{query!r}: first hit {first}"
    assert first_section.startswith(f"{zh_site_url}/{page_path}") and first_section.endswith(f"#{section}"), (
        f"{query!r}: first section {first_section}"
    )


def test_every_chinese_page_has_no_serious_axe_violation(browser, zh_site_url, axe_script):  # noqa: F811
    pages = site_pages(ZH_SITE)
    context = browser.new_context(color_scheme="light", viewport={"width": 1280, "height": 900}, **AXE_CONTEXT)
    page = context.new_page()
    found = {}
    for path in pages:
        page.goto(f"{zh_site_url}/{path}", wait_until=AXE_PAGE_LOAD)
        found[path] = run_axe(page, axe_script)["violations"]
    context.close()
    (ARTIFACTS / "axe-zh.json").write_text(json.dumps(found, indent=1))
    problems = blocking_report(found)
    assert not problems, "\n".join(problems)


def test_every_chinese_page_loads_offline_under_the_sites_policy(browser, zh_site_url):
    """Nothing fetched from outside the site, nothing blocked by its Content-Security-Policy."""
    context = browser.new_context()
    context.add_init_script(CSP_LISTENER)
    page = context.new_page()
    outside = requests_outside(page, zh_site_url)
    blocked = {}
    for path in site_pages(ZH_SITE):
        page.goto(f"{zh_site_url}/{path}", wait_until="networkidle")
        if found := blocked_by_policy(page):
            blocked[path] = found
    context.close()
    assert not outside and not blocked, (outside, blocked)
