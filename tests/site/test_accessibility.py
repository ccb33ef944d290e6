"""WCAG 2.2 AA in the browser: axe-core over every built page, and the keyboard alone.

axe-core comes from npm (`npm ci`, which `make test` runs) and is injected into
the pages by these tests only; the site never ships it. Every page under site/
is checked in the light and the dark scheme, wide and narrow; a serious or
critical violation fails, naming the page, the rule and an example element.
All violations, of any impact, are written to test-artifacts/axe-*.json.
"""

from __future__ import annotations

import json

import pytest
from site_browser import ARTIFACTS, NARROW, REPO, blocking_report, contrast, serve, site_pages

from handbook import labs
from handbook.execution.labs import lab_files
from handbook.rendering import other_python_note

AXE = REPO / "node_modules" / "axe-core" / "axe.min.js"
AXE_TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa", "best-practice"]
# Playwright's emulated preference -> the scheme Material must then show.
SCHEMES = {"light": "default", "dark": "slate"}
WIDTHS = {"1280px": {"viewport": {"width": 1280, "height": 900}}, "390px": NARROW}
# Pages the build generates rather than reads from docs/: discovery must see them.
GENERATED = {"source-map/", "how-this-site-is-built/", "what-changed/"}
# axe is added to the page as an inline script, which the site's Content-Security-Policy
# blocks (tests/site/test_browser.py checks the policy itself).
AXE_CONTEXT = {"bypass_csp": True}
# axe runs once a page has loaded (its markup, styles, fonts and scripts): what it fetches after
# (the search index, in a worker) changes nothing axe checks, and "networkidle" waited 0.5 s more a page.
AXE_PAGE_LOAD = "load"

# Violations, and how many elements the rules looked at (passes are listed in full only
# for a part of a page: on a whole page one example per rule is enough, and faster).
AXE_RUN = """async ([within, options]) => {
  const results = await axe.run(within ? {include: [[within]]} : document, options);
  const nodes = [...results.passes, ...results.violations, ...results.incomplete].flatMap(r => r.nodes);
  return {
    violations: results.violations.map(v => ({
      rule: v.id, impact: v.impact,
      nodes: v.nodes.map(n => ({target: n.target.join(" "), summary: n.failureSummary})),
    })),
    checked: nodes.length,
  };
}"""

# What shows that the focused element has focus, and what surrounds that.
FOCUS_STATE = """async (kinds) => {
  // Measure the settled state: wait for the transitions focus started (finite, unlike animations).
  const transitions = document.getAnimations().filter(a => a instanceof CSSTransition);
  await Promise.all(transitions.map(a => a.finished.catch(() => null)));
  const element = document.activeElement;
  if (element === document.body) return {outside: true};  // focus is in the browser's own controls
  if (!window.handbookFirstFocus) window.handbookFirstFocus = element;
  // A visually hidden control shows its focus on what stands for it.
  let shown = element;
  if (element.matches(".tabbed-set > input")) shown = element.parentElement.querySelector(".tabbed-labels");
  else if (element.matches("input.md-option")) shown = element.closest("form").querySelector("label:not([hidden])");
  else if (element.matches(".md-search__input")) shown = element.closest(".md-search__form");
  const rgba = text => {
    const match = text.match(/^rgba?\\(([\\d.]+), ([\\d.]+), ([\\d.]+)(?:, ([\\d.]+))?\\)$/);
    if (!match) throw new Error("unexpected colour: " + text);
    return [+match[1], +match[2], +match[3], match[4] === undefined ? 1 : +match[4]];
  };
  // The colour around an element: its ancestors' backgrounds, composited over white.
  const layers = [];
  for (let node = shown.parentElement; node; node = node.parentElement) {
    const colour = rgba(getComputedStyle(node).backgroundColor);
    if (colour[3] > 0) layers.push(colour);
    if (colour[3] >= 1) break;
  }
  const around = layers.reverse().reduce(
    (under, [r, g, b, a]) => [r * a + under[0] * (1 - a), g * a + under[1] * (1 - a), b * a + under[2] * (1 - a)],
    [255, 255, 255]);
  const style = getComputedStyle(shown);
  const box = shown.getBoundingClientRect();
  return {
    kinds: Object.entries(kinds).filter(([, selector]) => element.matches(selector)).map(([kind]) => kind),
    describe: [element.tagName.toLowerCase(), element.getAttribute("class"),
               element.getAttribute("href") || element.id || element.textContent.trim().slice(0, 40)]
              .filter(Boolean).join(" "),
    wrapped: element === window.handbookFirstFocus && window.handbookStops++ > 0,
    outline: [style.outlineStyle, parseFloat(style.outlineWidth), rgba(style.outlineColor)],
    around,
    visible: box.width > 0 && box.height > 0
             && shown.checkVisibility({opacityProperty: true, visibilityProperty: true}),
  };
}"""

# On the chapter the keyboard test walks: what the project adds, each of which Tab must reach.
REACHED = {
    "provenance commit link": ".handbook-provenance a[href*='/commit/']",
    "notebook download link": "a.handbook-notebook",
    "source link": "a.pytorch-source",
    "tab label": ".tabbed-set > input",
    "copy button": "button.md-code__button[data-md-type='copy']",
}
KEYBOARD_CHAPTER = "setup/"  # it has every kind above, tabs included
# Tab stops are measured as they settle. Material removes every transition for a reader who asks
# for reduced motion (`transition: none`), so each stop is in its settled state at once, where
# waiting for the transitions focus starts took about 0.1 s a stop (30 s a walk through a chapter).
KEYBOARD_CONTEXT = {"viewport": {"width": 1280, "height": 900}, "reduced_motion": "reduce"}
MAX_TAB_STOPS = 1000


@pytest.fixture(scope="session")
def axe_script() -> str:
    assert AXE.is_file(), f"{AXE.relative_to(REPO)} is missing: run `npm ci` (make test does)"
    return AXE.read_text()


def run_axe(page, axe_script: str, within: str | None = None, rules: list[str] | None = None) -> dict:
    """axe-core on the open page, or on the elements matching `within`: violations and elements checked."""
    page.add_script_tag(content=axe_script)
    options = {"runOnly": {"type": "rule", "values": rules} if rules else {"type": "tag", "values": AXE_TAGS}}
    if within is None:
        options["resultTypes"] = ["violations"]
    return page.evaluate(AXE_RUN, [within, options])


def focus_problems(state: dict) -> list[str]:
    """Why a focused element's focus is not visible enough, if it is not."""
    style, width, colour = state["outline"]
    if not state["visible"]:
        return ["it is not visible"]
    if style == "none" or width < 2:
        return [f"its outline is {style} {width}px"]
    ratio = contrast(colour, state["around"])
    return [] if ratio >= 3 else [f"its outline has {ratio:.2f}:1 contrast with what surrounds it"]


def tab_through(page, kinds: dict[str, str]) -> tuple[set[str], list[str]]:
    """Press Tab until focus comes back round; the kinds reached and every stop whose focus did not show."""
    page.evaluate("window.handbookStops = 0; window.handbookFirstFocus = null")
    reached, unseen = set(), []
    for _ in range(MAX_TAB_STOPS):
        page.keyboard.press("Tab")
        state = page.evaluate(FOCUS_STATE, kinds)
        if state.get("outside"):
            continue
        if state["wrapped"]:
            return reached, unseen
        reached.update(state["kinds"])
        unseen += [f"{state['describe']}: {problem}" for problem in focus_problems(state)]
    pytest.fail(f"focus did not come back round in {MAX_TAB_STOPS} Tab presses")


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("scheme", SCHEMES)
def test_every_page_has_no_serious_axe_violation(browser, site_url, axe_script, scheme, width):
    pages = site_pages()
    assert GENERATED <= set(pages), f"generated pages missing from site/: {GENERATED - set(pages)}"
    context = browser.new_context(color_scheme=scheme, **WIDTHS[width], **AXE_CONTEXT)
    page = context.new_page()
    found = {}
    for path in pages:
        page.goto(f"{site_url}/{path}", wait_until=AXE_PAGE_LOAD)
        assert page.evaluate("document.body.dataset.mdColorScheme") == SCHEMES[scheme], (
            f"/{path} is not in the {scheme} scheme"
        )
        found[path] = run_axe(page, axe_script)["violations"]
    context.close()
    ARTIFACTS.mkdir(exist_ok=True)
    (ARTIFACTS / f"axe-{scheme}-{width}.json").write_text(json.dumps(found, indent=1))
    problems = blocking_report(found)
    assert not problems, (
        f"{len(problems)} serious or critical axe violation(s), {scheme} scheme, {width}:\n" + "\n".join(problems)
    )


# The handbook-* notes rendering.py writes, including those no page may show today (a drift warning).
NOTES = ["origin", "note", "cut", "gpu", "warning", "changed", "python"]


@pytest.mark.parametrize("scheme", SCHEMES)
def test_project_notes_meet_contrast(browser, site_url, axe_script, scheme):
    """Every kind of note the project styles, including those no page shows today (a drift warning)."""
    context = browser.new_context(color_scheme=scheme, viewport={"width": 1280, "height": 900}, **AXE_CONTEXT)
    page = context.new_page()
    page.goto(f"{site_url}/tensors/", wait_until="networkidle")
    page.evaluate(
        """([kinds, folded]) => {
      const article = document.querySelector("article.md-typeset");
      for (const kind of kinds)
        article.insertAdjacentHTML(
          "afterbegin", `<p class="handbook-${kind}" data-note>A ${kind} note: changed in torch 2.14.</p>`);
      article.insertAdjacentHTML("afterbegin", `<div data-note>${folded}</div>`);
      article.querySelector("[data-note] details").open = true;
    }""",
        [NOTES, other_python_note(["3.13"], "thresholds: (2000, 10, 10)")],
    )
    result = run_axe(page, axe_script, within="[data-note]", rules=["color-contrast"])
    context.close()
    assert result["checked"] >= len(NOTES), f"axe checked {result['checked']} of the {len(NOTES)} notes"
    problems = blocking_report({f"tensors/ ({', '.join(NOTES)} notes)": result["violations"]})
    assert not problems, "\n".join(problems)


# A lab's page: its own kinds of stop, its folded solutions first.
REACHED_ON_A_LAB = {
    "notebook download link": "a.handbook-notebook",
    "folded solution": "details.handbook-solution > summary",
    "source link": "a.pytorch-source",
    "copy button": "button.md-code__button[data-md-type='copy']",
}
KEYBOARD_LAB = "labs/tensors/"
# Every other lab, in one scheme: the labs share their markup, and the focus ring's colours are
# checked in both schemes on the first.
OTHER_LABS = [f"{labs.page_url(lab)}" for lab in lab_files(REPO) if labs.page_url(lab) != KEYBOARD_LAB]
WALKS = [
    *[
        (scheme, path, kinds)
        for scheme in SCHEMES
        for path, kinds in [(KEYBOARD_CHAPTER, REACHED), (KEYBOARD_LAB, REACHED_ON_A_LAB)]
    ],
    *[("light", path, REACHED_ON_A_LAB) for path in OTHER_LABS],
]


@pytest.mark.parametrize(("scheme", "path", "kinds"), WALKS)
def test_chapter_by_keyboard_alone(browser, site_url, scheme, path, kinds):
    context = browser.new_context(color_scheme=scheme, **KEYBOARD_CONTEXT)
    page = context.new_page()
    page.goto(f"{site_url}/{path}", wait_until="networkidle")
    for kind, selector in kinds.items():
        assert page.locator(selector).count(), f"/{path} has no {kind} ({selector}) any more: pick another page"
    reached, unseen = tab_through(page, kinds)
    context.close()
    assert reached == set(kinds), f"Tab never reached: {', '.join(sorted(set(kinds) - reached))}"
    assert not unseen, f"{len(unseen)} Tab stop(s) on /{path} without a visible focus indicator:\n" + "\n".join(unseen)


def test_version_selector_by_keyboard(browser, deployed):
    """The version selector of a mike deployment opens, and shows focus, from the keyboard."""
    _, branch_tree = deployed
    server = serve(branch_tree)
    try:
        context = browser.new_context(**KEYBOARD_CONTEXT)
        page = context.new_page()
        page.goto(f"http://127.0.0.1:{server.server_address[1]}/2.13/", wait_until="networkidle")
        page.wait_for_selector(".md-version__current", timeout=15000)
        reached, unseen = tab_through(
            page, {"version selector": ".md-version__current", "version link": ".md-version__link"}
        )
        context.close()
    finally:
        server.shutdown()
    assert reached == {"version selector", "version link"}, f"Tab reached only {reached or 'neither'}"
    assert not unseen, "\n".join(unseen)
