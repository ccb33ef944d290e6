"""Text from pages in the build's log, escaped: what a block printed, raised or started cannot speak as the build.

A page's output, its error, a diff of it, the command line of a process it left running or the
name of a file it wrote reach the build's log (and pytest's). A terminal runs the escape sequences
in such text (ANSI colours, OSC titles and links, a carriage return that hides a line), and a
GitHub Actions runner runs every line that starts with `::` (`::error`, `::add-mask::`,
`::stop-commands::`), leading spaces aside. So control characters (but tab and newline), and
the characters that reorder text as it is shown (bidirectional overrides), are written as escapes
(`\\x1b`), and a line that would start with `::` starts with a backslash. Escaping twice changes
nothing more.
"""

from __future__ import annotations

import re

# C0 controls but tab and newline, DEL, C1 controls, and Unicode's bidirectional embeddings,
# overrides and isolates, and its line and paragraph separators.
CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")


def _escape(character: re.Match) -> str:
    code = ord(character[0])
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def escaped(text: str) -> str:
    """`text` as the build's log may show it."""
    text = CONTROL.sub(_escape, text)
    return "\n".join("\\" + line if line.lstrip().startswith("::") else line for line in text.split("\n"))
