"""The built site in a real browser: Debian's Chromium driven by Playwright, against localhost.

Needs `site/` from the strict build (`make test` builds it first). Chromium is
installed here if missing; where it cannot be, these tests fail, saying why.
Screenshots are written to test-artifacts/. Accessibility is tested in
test_accessibility.py.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import INSTALLED
from site_browser import (
    ARTIFACTS,
    CSP_LISTENER,
    NARROW,
    SITE,
    blocked_by_policy,
    requests_outside,
    screenshot,
    serve,
    site_pages,
)

from handbook import labs
from handbook.execution.blocks import scan_docs
from handbook.execution.labs import lab_files, read_lab

# Every chapter: the pages with executed blocks, each of which offers its notebook.
REPO = Path(__file__).resolve().parents[2]
CHAPTERS = [page.path.removesuffix(".md") for page in scan_docs(REPO) if page.blocks and page.path != "index.md"]
LABS = [labs.page_url(lab).rstrip("/") for lab in lab_files(REPO)]  # labs/tensors
MAX_PAGE_BYTES = 1_500_000


@pytest.fixture
def page(browser):
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    context.grant_permissions(["clipboard-read", "clipboard-write"])
    page = context.new_page()
    yield page
    context.close()


def test_home_loads_without_errors_or_outside_requests(page, site_url):
    errors = []
    page.on("console", lambda message: message.type == "error" and errors.append(message.text))
    page.on("pageerror", lambda error: errors.append(str(error)))
    outside = requests_outside(page, site_url)
    page.goto(site_url + "/", wait_until="networkidle")
    screenshot(page, "home")
    assert "PyTorch Internals, executed" in page.title()
    assert f"torch {INSTALLED}" in page.inner_text(".md-banner")
    assert errors == []
    assert outside == []


def test_search_finds_tensorimpl(page, site_url):
    page.goto(site_url + "/", wait_until="networkidle")
    page.locator("input[data-md-component='search-query']").click()
    page.keyboard.type("TensorImpl")  # typed, as a reader does: the search listens to key events
    page.wait_for_selector(".md-search-result__item", timeout=15000)
    screenshot(page, "search")
    results = page.inner_text(".md-search-result")
    assert "TensorImpl" in results


def test_the_search_index_is_fetched_when_the_reader_turns_to_search(page, site_url):
    """Not at every page load (handbook-search.js): when the search field is first used, or at once
    on a page opened from a search result (`?h=`, whose terms Material highlights)."""
    fetched = []
    page.on("request", lambda request: "search_index.json" in request.url and fetched.append(request.url))
    page.goto(site_url + "/autograd/", wait_until="networkidle")
    assert fetched == [], "the search index was fetched before the reader turned to the search"
    page.locator("input[data-md-component='search-query']").click()
    page.keyboard.type("TensorImpl")
    page.wait_for_selector(".md-search-result__item", timeout=15000)
    assert len(fetched) == 1
    fetched.clear()
    page.goto(site_url + "/autograd/?h=grad", wait_until="networkidle")
    assert len(fetched) == 1, "a page opened from a search result did not fetch the index to highlight"


SCHEME = "document.body.dataset.mdColorScheme"


def test_the_palette_toggle_switches_and_is_remembered(browser, site_url):
    """The header's toggle (handbook-header.js, in place of Material's palette component): a click and
    Enter switch the scheme, the browser's colours follow, and the choice holds on the next page."""
    context = browser.new_context(color_scheme="light", viewport={"width": 1280, "height": 900})
    page = context.new_page()
    page.goto(site_url + "/autograd/", wait_until="networkidle")
    assert page.evaluate(SCHEME) == "default"
    assert page.evaluate("document.querySelector('meta[name=color-scheme]').content") == "light"
    page.locator("label[for='__palette_1']").click()
    assert page.evaluate(SCHEME) == "slate"
    assert page.evaluate("document.querySelector('meta[name=color-scheme]').content") == "dark"
    assert page.locator("label[for='__palette_0']").is_visible()
    assert not page.locator("label[for='__palette_1']").is_visible()
    page.goto(site_url + "/dispatch/", wait_until="networkidle")
    assert page.evaluate(SCHEME) == "slate"
    assert page.evaluate("document.body.hasAttribute('data-md-color-switching')") is False
    page.focus("#__palette_1")
    page.keyboard.press("Enter")
    assert page.evaluate(SCHEME) == "default"
    context.close()


# Each change of a stylesheet's href, and whether the page's article had been parsed by then.
STYLESHEET_CHANGES = """
window.__stylesheetChanges = [];
new MutationObserver((records) => {
  for (const record of records) {
    if (record.target.matches("link[rel=stylesheet]")) {
      window.__stylesheetChanges.push(document.querySelector("article") !== null);
    }
  }
}).observe(document, {subtree: true, attributes: true, attributeFilter: ["href"]});
"""


def test_the_stylesheets_addresses_are_made_absolute_before_the_article_is_parsed(page, site_url):
    """handbook-header.js makes them absolute while the page is only its header: Material's instant
    navigation does it otherwise once the whole page is styled, and every element is styled again."""
    page.add_init_script(STYLESHEET_CHANGES)
    page.goto(site_url + "/autograd/", wait_until="networkidle")
    hrefs = page.evaluate("[...document.querySelectorAll('link[rel=stylesheet]')].map(l => l.getAttribute('href'))")
    assert len(hrefs) >= 3 and all(href.startswith(site_url + "/") for href in hrefs), hrefs
    assert page.evaluate("window.__stylesheetChanges") == [False] * len(hrefs)
    # All of them applied, each once.
    assert sorted(page.evaluate("[...document.styleSheets].map(s => s.href)")) == sorted(hrefs)
    assert page.evaluate("getComputedStyle(document.querySelector('.md-header')).position") == "sticky"


def test_chapter_shows_outputs_and_source_links_with_tag(page, site_url):
    page.goto(site_url + "/tensors/", wait_until="networkidle")
    screenshot(page, "chapter-tensors")
    titles = page.locator(".highlight .filename").all_inner_texts()
    assert titles.count("Output") >= 12
    assert page.locator(".highlight.handbook-output").count() >= 12
    link = page.locator("a.pytorch-source").first
    assert link.get_attribute("href").startswith(f"https://github.com/pytorch/pytorch/blob/v{INSTALLED}/")
    assert f"v{INSTALLED}" in link.get_attribute("title")
    # The file and lines are shown beside the link, not only in its tooltip.
    where = page.locator("a.pytorch-source + .pytorch-where, a.pytorch-source ~ .pytorch-where").first
    assert where.is_visible() and ":" in where.inner_text()
    origin = page.locator(".handbook-origin").first
    assert origin.is_visible() and origin.inner_text().startswith("snippets/")


@pytest.mark.parametrize("lab", lab_files(REPO))
def test_a_lab_page_folds_its_solutions_and_offers_its_notebook(page, site_url, lab):
    errors = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    outside = requests_outside(page, site_url)
    page.goto(f"{site_url}/{labs.page_url(lab)}", wait_until="networkidle")
    screenshot(page, f"lab-{lab.removesuffix('.py')}")
    assert page.title().startswith(read_lab(REPO, "labs", lab).title) and errors == [] and outside == []
    solutions = page.locator("details.handbook-solution")
    assert solutions.count() >= 4 and page.locator("details.handbook-solution[open]").count() == 0
    assert not solutions.first.locator(".highlight").is_visible()
    solutions.first.locator("summary").click()
    assert solutions.first.locator(".highlight").is_visible()
    assert page.locator(".highlight.handbook-lab-check").count() == solutions.count()
    outputs = page.locator(".handbook-lab-check + .handbook-output").all_inner_texts()
    assert outputs and all(text.strip().endswith("correct") for text in outputs)
    download = page.locator("a.handbook-notebook")
    assert download.get_attribute("href").endswith(labs.notebook_path(lab))
    toc = page.locator(".md-sidebar--secondary .md-nav__link").all_inner_texts()
    assert any("Exercise 1" in entry for entry in toc)


@pytest.mark.parametrize(("query", "lab"), [("element_offset", "tensors.py"), ("reverse_gradient", "autograd.py")])
def test_search_finds_a_lab(page, site_url, query, lab):
    """A function the lab's reader completes leads to the lab."""
    page.goto(site_url + "/", wait_until="networkidle")
    page.locator("input[data-md-component='search-query']").click()
    page.keyboard.type(query)
    page.wait_for_selector(".md-search-result__item", timeout=15000)
    links = page.locator(".md-search-result__item a").evaluate_all("links => links.map(a => a.href)")
    assert any(f"/{labs.page_url(lab)}" in link for link in links), links


def test_copy_button_copies_a_block(page, site_url):
    page.goto(site_url + "/tensors/", wait_until="networkidle")
    block = page.locator(".highlight").first
    block.hover()
    block.locator("button[data-md-type='copy']").click()
    copied = page.evaluate("navigator.clipboard.readText()")
    assert copied.startswith("import torch")
    assert copied.strip() == block.locator("code").inner_text().strip()


# Every code block of a chapter, its source and its output, quoted PyTorch source included (its line
# numbers are inline, `linenums_style: pymdownx-inline`): what scrolls sideways, as "page: first line".
OVERFLOWING = """() => [...document.querySelectorAll("article .highlight pre > code")]
  .filter(code => code.scrollWidth > code.clientWidth + 1)
  .map(code => `${location.pathname}: ${code.textContent.split("\\n")[0].slice(0, 60)}`)"""


@pytest.mark.parametrize(
    "viewport", [{"width": 1280, "height": 900}, {"width": 390, "height": 844}], ids=["1280px", "390px"]
)
def test_no_code_block_scrolls_sideways_on_any_chapter(browser, site_url, viewport):
    context = browser.new_context(viewport=viewport)
    page = context.new_page()
    hidden, blocks = [], 0
    for chapter in CHAPTERS + LABS:
        page.goto(f"{site_url}/{chapter}/", wait_until="networkidle")
        blocks += page.locator("article .highlight pre > code").count()
        hidden += page.evaluate(OVERFLOWING)
    context.close()
    assert blocks > 100, f"only {blocks} code blocks found on the chapters"
    assert hidden == [], f"{len(hidden)} code block(s) scroll sideways at {viewport['width']}px:\n" + "\n".join(hidden)


# The first source block on the page whose lines the browser wraps: its text, and its id.
WRAPPED_BLOCK = """() => {
  for (const code of document.querySelectorAll("article div.highlight:not(.handbook-output) > pre > code")) {
    const style = getComputedStyle(code);
    const inner = code.clientHeight - parseFloat(style.paddingTop) - parseFloat(style.paddingBottom);
    const shown = Math.round(inner / parseFloat(style.lineHeight));
    const lines = code.textContent.replace(/\\n$/, "").split("\\n").length;
    if (shown > lines) { code.closest(".highlight").id = "wrapped-block"; return code.textContent; }
  }
  return null;
}"""


def test_a_wrapped_block_copies_its_lines_unwrapped(page, site_url):
    page.goto(site_url + "/autograd/", wait_until="networkidle")
    text = page.evaluate(WRAPPED_BLOCK)
    assert text, "no code block on /autograd/ wraps at 1280px: pick a page with a longer line"
    block = page.locator("#wrapped-block")
    block.hover()
    block.locator("button[data-md-type='copy']").click()
    copied = page.evaluate("navigator.clipboard.readText()")
    assert copied.strip("\n").split("\n") == text.strip("\n").split("\n")  # no line break added, none lost


def test_notebook_download_is_a_valid_notebook(page, site_url):
    import nbformat

    page.goto(site_url + "/autograd/", wait_until="networkidle")
    with page.expect_download() as download:
        page.click("a.handbook-notebook")
    assert download.value.suggested_filename == "autograd.ipynb"
    path = download.value.path()
    notebook = nbformat.read(path, as_version=4)
    nbformat.validate(notebook)
    assert any(cell.cell_type == "code" and cell.outputs for cell in notebook.cells)
    assert notebook.cells[0].source.splitlines()[-1].startswith("%pip install --quiet torch==")


def test_narrow_viewport_is_usable(browser, site_url):
    context = browser.new_context(**NARROW)
    page = context.new_page()
    page.goto(site_url + "/autograd/", wait_until="networkidle")
    screenshot(page, "narrow-autograd")
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= 390, f"the page scrolls sideways: {width}px"
    page.click(".md-header__button[for='__drawer']")
    page.wait_for_selector(".md-nav--primary", state="visible")
    assert page.locator(".md-nav--primary").is_visible()
    context.close()


NAV_LINK_HEIGHTS = """() => [...document.querySelectorAll('.md-sidebar a.md-nav__link')]
  .filter(a => a.offsetParent).map(a => [a.textContent.trim(), a.getBoundingClientRect().height])"""


def test_navigation_links_are_at_least_24_px_tall(page, site_url):
    """WCAG 2.2's target size (2.5.8): Material's own navigation and contents links are 18 px."""
    page.goto(site_url + "/autograd/", wait_until="networkidle")
    heights = page.evaluate(NAV_LINK_HEIGHTS)
    assert len(heights) > 20, f"only {len(heights)} visible links in the sidebars"
    small = [(text, round(height, 1)) for text, height in heights if height < 24]
    assert not small, small


def test_a_phone_sees_the_chapter_title_then_its_notebook_and_colab(browser, site_url):
    """The notebook is a download and a Colab button at the top of its chapter, not a page."""
    context = browser.new_context(**NARROW)
    page = context.new_page()
    page.goto(site_url + "/autograd/", wait_until="networkidle")
    screenshot(page, "notebook-links-autograd-narrow")
    title = page.locator("article h1").bounding_box()
    download = page.locator("a.handbook-notebook").bounding_box()
    colab = page.locator("a.handbook-colab")
    assert colab.get_attribute("href").startswith("https://colab.research.google.com/github/")
    assert colab.get_attribute("href").endswith("/notebooks/autograd.ipynb")
    assert title["y"] < download["y"] < NARROW["viewport"]["height"], (title, download)
    assert page.locator("a.handbook-notebook").inner_text() == "Download notebook"
    context.close()


def test_heaviest_chapter_transfers_at_most_1_5_mb(browser, site_url):
    weights = {}
    pages = CHAPTERS
    missing = [page for page in pages if not (SITE / page / "index.html").is_file()]
    assert not missing, f"not in the built site: {', '.join(missing)}"
    for chapter in pages:
        context = browser.new_context()
        page = context.new_page()
        sizes = []
        page.on("response", lambda response, sizes=sizes: sizes.append(len(response.body()) if response.ok else 0))
        page.goto(f"{site_url}/{chapter}/", wait_until="networkidle")
        weights[chapter] = sum(sizes)
        context.close()
    ARTIFACTS.mkdir(exist_ok=True)
    (ARTIFACTS / "page-weights.json").write_text(json.dumps(weights, indent=1))
    heaviest = max(weights, key=weights.get)
    assert weights[heaviest] <= MAX_PAGE_BYTES, f"{heaviest}: {weights[heaviest]} bytes"


def test_version_selector_and_outdated_banner(browser, deployed):
    """Two versions deployed with mike into a throwaway repository, served as `mike serve` would."""
    _, branch_tree = deployed
    server = serve(branch_tree)
    base = f"http://127.0.0.1:{server.server_address[1]}"
    try:
        context = browser.new_context()
        page = context.new_page()
        page.goto(base + "/2.13/", wait_until="networkidle")
        page.wait_for_selector(".md-version__current", timeout=15000)
        screenshot(page, "versions-older")
        listed = page.locator(".md-version__link").all_inner_texts()
        assert "torch 2.14" in listed and "torch 2.13" in listed
        assert page.locator("[data-md-component=outdated]").is_visible()
        page.goto(base + "/latest/", wait_until="networkidle")
        page.wait_for_selector(".md-version__current", timeout=15000)
        screenshot(page, "versions-latest")
        assert not page.locator("[data-md-component=outdated]").is_visible()
        context.close()
    finally:
        server.shutdown()


def test_the_content_security_policy_blocks_nothing_on_any_page(browser, site_url):
    """Every page, and the search (its worker), under the site's own policy."""
    context = browser.new_context()
    context.add_init_script(CSP_LISTENER)
    console = []
    blocked = {}
    page = context.new_page()
    page.on("console", lambda message: "Content Security Policy" in message.text and console.append(message.text))
    pages = site_pages()
    assert "autograd/" in pages and len(pages) > len(CHAPTERS)
    for path in pages:
        page.goto(f"{site_url}/{path}", wait_until="networkidle")
        assert page.locator('meta[http-equiv="Content-Security-Policy"]').count() == 1, path
        if found := blocked_by_policy(page) + console:
            blocked[path] = found
        console.clear()
    page.goto(site_url + "/", wait_until="networkidle")
    page.locator("input[data-md-component='search-query']").click()
    page.keyboard.type("TensorImpl")
    page.wait_for_selector(".md-search-result__item", timeout=15000)
    page.click(".md-search-result__item a")  # instant navigation to a result
    page.wait_for_load_state("networkidle")
    if found := blocked_by_policy(page) + console:
        blocked["search"] = found
    context.close()
    assert blocked == {}


def test_front_matter_adds_no_markup(project):
    """Keys that once made notebook links are refused (page_meta.front_matter), and nothing of them is printed."""
    import shutil

    config = project.root / "mkdocs.yml"
    config.write_text(config.read_text().replace("theme: mkdocs", "theme:\n  name: material\n  custom_dir: overrides"))
    shutil.copytree(REPO / "overrides", project.root / "overrides")
    project.write(
        "docs/index.md",
        """
        ---
        notebook_file: 'x.ipynb" onmouseover="alert(1)'
        colab_url: ' javascript:alert(2)'
        ---
        # Home

        Hello.
        """,
    )
    result = project.build()  # keys a page may not carry fail the build, naming the page and each key
    assert result.returncode != 0
    for key in ("notebook_file", "colab_url"):
        assert f"docs/index.md: front matter `{key}:` is not one a page may carry" in result.stderr
    html = project.root / "site/index.html"
    assert not html.exists() or "onmouseover" not in html.read_text() and "javascript:" not in html.read_text()
