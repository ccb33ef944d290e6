"""Fewer elements for the browser to lay out: Pygments gives every name and every run of
whitespace in a listing a span of its own, though the theme draws both in the listing's own
colour (Material's `.n` is `--md-code-hl-name-color`, which it sets to `--md-code-fg-color` in
both schemes; `.w` has no rule). Without those spans the text and its colours are the same, and
the longest chapter has a quarter fewer elements."""

from __future__ import annotations

import re

# Pygments escapes a token's text, so a plain token's span holds no markup of its own.
_PLAIN_TOKEN = re.compile(r'<span class="[nw]">([^<]*)</span>')


def without_plain_token_spans(html: str) -> str:
    """`html` with the spans of names and whitespace replaced by their text."""
    return _PLAIN_TOKEN.sub(r"\1", html)
