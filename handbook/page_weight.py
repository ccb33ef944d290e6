"""Fewer elements for the browser to lay out: Pygments gives every name, operator, punctuation
mark and run of whitespace in a listing a span of its own. The theme draws names in the listing's
own colour (Material's `.n` is `--md-code-hl-name-color`, set to `--md-code-fg-color` in both
schemes; `.w` has no rule), and so does the handbook's stylesheet for operators and punctuation
(`docs/assets/handbook.css`: they were a lighter grey, which no reader needs to read `x.y(z)`).
Without those spans the text and its colours are the same, and the longest chapter has about
half as many elements: on a phone, fewer elements to lay out is less time blocked."""

from __future__ import annotations

import re

# Pygments escapes a token's text, so a plain token's span holds no markup of its own.
_PLAIN_TOKEN = re.compile(r'<span class="[nwop]">([^<]*)</span>')


def without_plain_token_spans(html: str) -> str:
    """`html` with the spans of names, operators, punctuation and whitespace replaced by their text."""
    return _PLAIN_TOKEN.sub(r"\1", html)
