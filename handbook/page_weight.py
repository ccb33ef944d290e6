"""Fewer elements for the browser to lay out: Pygments gives every token of a listing a span of its
own, and on a long chapter those spans were most of the page's elements (on a phone, fewer elements
to style and lay out is less time blocked). What is dropped here changes neither the text nor a
single colour the reader sees:

- the spans of tokens drawn in the listing's own colour: names and the constants `True`, `None`,
  `False` (Material's `--md-code-hl-name-color` is `--md-code-fg-color`), operators, `in`, `is`,
  `not` and punctuation (the handbook's stylesheet sets their colours to the listing's own,
  `docs/assets/handbook.css`), and whitespace, string prefixes (`f`, `r`), magic names (`__init__`)
  that Material gives no colour at all;
- neighbouring spans of the same colour (a string and the `{` `}` of its f-string, a comment and the
  comment on the next line), merged into the first one; only whitespace may lie between them;
- the empty span Pygments starts every listing with;
- the empty element before each block that carries the block's anchor: the id goes on the block's
  own `<div class="highlight">` where one follows at once.

`COLOURS` is Material's map from token class to colour (tests/unit/test_page_weight.py checks it against
the stylesheet Material ships)."""

from __future__ import annotations

import re

# Token classes whose text is drawn in the listing's own colour, with or without their span.
PLAIN = ("n", "w", "o", "ow", "p", "kc", "sa", "fm", "vm")

# Material's stylesheet: the colour (a custom property) of each Pygments token class it colours.
_GROUPS = {
    "string": "cpf l s s1 s2 sb sc si ss",
    "special": "cp se sh sr sx",
    "number": "il m mb mf mh mi mo",
    "keyword": "k kd kn kp kr kt nd ni nl nt",
    "name": "kc n",
    "constant": "bp nb no",
    "function": "nc ne nf nn",
    "comment": "c c1 ch cm cs sd",
    "variable": "na nv vc vg vi",
    "generic": "ge gh go gp gr gs gt gu",
    "operator": "o ow",
    "punctuation": "p",
}
COLOURS = {token: f"--md-code-hl-{group}-color" for group, tokens in _GROUPS.items() for token in tokens.split()}

# Pygments escapes a token's text, so a token's span holds no markup of its own.
_PLAIN_TOKEN = re.compile(r'<span class="(?:{})">([^<]*)</span>'.format("|".join(PLAIN)))
_NEIGHBOURS = re.compile(r'<span class="([a-z0-9]+)">([^<]*)</span>(\s*)<span class="([a-z0-9]+)">([^<]*)</span>')
_EMPTY_FIRST_SPAN = "<pre><span></span><code>"
_BLOCK_ANCHOR = re.compile(r'<div id="(block-[^"]+)"></div>(<div class="highlight">)')


def _merged(match: re.Match) -> str:
    first, text, between, second, more = match.groups()
    if first in COLOURS and COLOURS[first] == COLOURS.get(second):
        return f'<span class="{first}">{text}{between}{more}</span>'
    return match.group(0)


def _with_neighbours_merged(html: str) -> str:
    while True:  # a run of n spans of one colour merges pairwise: each pass halves it at least
        merged = _NEIGHBOURS.sub(_merged, html)
        if merged == html:
            return html
        html = merged


def without_plain_token_spans(html: str) -> str:
    """`html` with the listings' spans that draw nothing of their own replaced by their text, the
    neighbouring spans of one colour merged, and each block's anchor on the block itself."""
    html = _with_neighbours_merged(_PLAIN_TOKEN.sub(r"\1", html))
    html = html.replace(_EMPTY_FIRST_SPAN, "<pre><code>")
    return _BLOCK_ANCHOR.sub(r'<div id="\1" class="highlight">', html)
