"""Text from pages in the build's log: escaped, so that it cannot speak as the build (workflow commands,
terminal escapes)."""

from __future__ import annotations

import pytest

from handbook.log_text import escaped


@pytest.mark.parametrize(
    "text, shown",
    [
        ("::error file=x::pwned", "\\::error file=x::pwned"),
        ("a\n    ::add-mask::secret\nb", "a\n\\    ::add-mask::secret\nb"),
        ("\x1b[31mred\x1b[0m", "\\x1b[31mred\\x1b[0m"),
        ("\x1b]8;;https://evil.example\x07link\x1b]8;;\x07", "\\x1b]8;;https://evil.example\\x07link\\x1b]8;;\\x07"),
        ("shown\rhidden", "shown\\x0dhidden"),
        ("\x9b31m", "\\x9b31m"),
        ("abc\u202edcba", "abc\\u202edcba"),
        ("tabs\tand\nlines stay", "tabs\tand\nlines stay"),
        ("a :: in the middle", "a :: in the middle"),
    ],
    ids=["workflow command", "indented", "ANSI", "OSC link", "carriage return", "C1", "bidi", "kept", "inner"],
)
def test_what_a_page_could_say_as_the_build_is_escaped(text, shown):
    assert escaped(text) == shown


def test_escaping_twice_changes_nothing_more():
    text = "::error::x\n\x1b[1m"
    assert escaped(escaped(text)) == escaped(text)
