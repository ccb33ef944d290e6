"""The build's environment switches: named once, and ARCHITECTURE.md's table lists exactly the documented ones."""

from __future__ import annotations

import re
from pathlib import Path

from handbook import switches

REPO = Path(__file__).resolve().parent.parent


def test_the_architecture_table_lists_the_documented_switches_in_order():
    text = (REPO / "ARCHITECTURE.md").read_text(encoding="utf-8")
    table = text[text.index("## Switches") :].split("\n## ", 1)[0]
    assert re.findall(r"^\| `([A-Z_]+)=", table, re.MULTILINE) == list(switches.DOCUMENTED)


def test_no_module_names_a_switch_but_the_list():
    """A switch's name written in a second place is how two of them came to disagree."""
    names = {value for name, value in vars(switches).items() if name.isupper() and isinstance(value, str)}
    written = []
    for path in sorted((REPO / "handbook").rglob("*.py")):
        if path.name == "switches.py":
            continue
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            written += [f"{path.relative_to(REPO)}:{number}: {n}" for n in names if f'"{n}"' in line]
    assert written == []


def test_an_empty_setting_is_no_setting(monkeypatch):
    monkeypatch.setenv(switches.BLOCK_TIMEOUT, "")
    assert switches.value(switches.BLOCK_TIMEOUT) is None
    monkeypatch.setenv(switches.CACHE, "0")
    assert switches.off(switches.CACHE) and not switches.off(switches.EXECUTE)
