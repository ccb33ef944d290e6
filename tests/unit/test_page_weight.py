import re
from pathlib import Path

from handbook.page_weight import COLOURS, PLAIN, without_plain_token_spans


def test_names_operators_punctuation_and_whitespace_lose_their_spans_and_keep_their_text():
    html = (
        '<code><span class="n">x</span><span class="w"> </span><span class="o">=</span><span class="w"> </span>'
        '<span class="n">torch</span><span class="o">.</span><span class="n">ones</span><span class="p">(</span>'
        '<span class="mi">2</span><span class="p">)</span></code>'
    )
    assert without_plain_token_spans(html) == '<code>x = torch.ones(<span class="mi">2</span>)</code>'


def test_other_spans_and_escaped_text_are_left_as_they_are():
    html = (
        '<span class="nf">f</span><span class="n">a&lt;b</span>'
        '<span class="pytorch-where">x.h</span><span class="s2">"n"</span><span class="k">in</span>'
    )
    assert without_plain_token_spans(html) == (
        '<span class="nf">f</span>a&lt;b<span class="pytorch-where">x.h</span><span class="s2">"n"</span>'
        '<span class="k">in</span>'
    )


def test_constants_word_operators_string_prefixes_and_magic_names_lose_their_spans():
    html = (
        '<span class="kc">None</span><span class="ow">in</span><span class="sa">f</span>'
        '<span class="fm">__init__</span><span class="vm">__name__</span>'
    )
    assert without_plain_token_spans(html) == "Noneinf__init____name__"


def test_neighbouring_spans_of_one_colour_merge_into_the_first_across_whitespace_only():
    html = (
        '<span class="s2">&quot;a </span><span class="si">{</span>x<span class="si">}</span>'
        '<span class="s2">&quot;</span>  <span class="c1"># one</span>\n<span class="c1"># two</span>'
        '<span class="k">if</span> <span class="nb">len</span><span class="mi">1</span><span class="mf">2.0</span>'
        '<span class="gd">-</span><span class="gd">-</span>'
    )
    assert without_plain_token_spans(html) == (
        '<span class="s2">&quot;a {</span>x<span class="si">}&quot;</span>  <span class="c1"># one\n# two</span>'
        '<span class="k">if</span> <span class="nb">len</span><span class="mi">12.0</span>'
        '<span class="gd">-</span><span class="gd">-</span>'
    )


def test_a_listing_loses_its_empty_first_span_and_a_block_anchor_goes_onto_its_listing():
    html = (
        '<div id="block-a"></div><div class="highlight"><pre><span></span><code>x\n</code></pre></div>'
        '<div id="block-b"></div><p class="handbook-figure">'
    )
    assert without_plain_token_spans(html) == (
        '<div id="block-a" class="highlight"><pre><code>x\n</code></pre></div>'
        '<div id="block-b"></div><p class="handbook-figure">'
    )


def test_the_colours_are_materials_own_and_the_plain_tokens_have_the_listings_colour():
    """A Material upgrade that colours tokens otherwise fails here rather than changing the page's colours."""
    import material

    stylesheet = next((Path(material.__file__).parent / "templates/assets/stylesheets").glob("main.*.min.css"))
    shipped = {}
    for selectors, colour in re.findall(
        r"((?:\.highlight \.[a-z0-9]+,?)+)\{color:var\((--md-code-hl-[a-z]+-color)\)\}", stylesheet.read_text()
    ):
        shipped.update(dict.fromkeys(re.findall(r"\.highlight \.([a-z0-9]+)", selectors), colour))
    assert shipped == COLOURS
    handbook_css = (Path(__file__).parents[2] / "docs/assets/handbook.css").read_text()
    for group in ("operator", "punctuation"):
        assert f"--md-code-hl-{group}-color: var(--md-code-fg-color);" in handbook_css
    assert "--md-code-hl-name-color" not in handbook_css and "--md-code-hl-name-color:var(--md-code-fg-color)" in (
        stylesheet.read_text()
    )
    assert all(
        COLOURS.get(token) in (None, *(f"--md-code-hl-{g}-color" for g in ("name", "operator", "punctuation")))
        for token in PLAIN
    )
