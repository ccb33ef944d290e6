"""The build's environment switches: named once, and ARCHITECTURE.md's table lists exactly the documented ones."""

from __future__ import annotations

import ast
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


SWITCH_NAME = re.compile(r"\b(?:HANDBOOK|DOCS)_[A-Z][A-Z0-9_]*")


def _strings(tree: ast.AST) -> list[ast.Constant]:
    """The string constants of a module, f-strings' text included, docstrings not (prose about a switch)."""
    docstrings = {
        id(node.body[0].value)
        for node in ast.walk(tree)
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
        and node.body
        and isinstance(node.body[0], ast.Expr)
        and isinstance(node.body[0].value, ast.Constant)
    }
    return [
        node
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings
    ]


def test_no_module_spells_a_switch_in_a_string_but_the_list():
    """Any HANDBOOK_*/DOCS_* name in a string (a message, a default, a lookup), listed or not: a
    message naming a switch by hand outlives the switch's renaming."""
    written = []
    for path in sorted((REPO / "handbook").rglob("*.py")):
        if path.name == "switches.py":
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in _strings(tree):
            written += [f"{path.relative_to(REPO)}:{node.lineno}: {n}" for n in SWITCH_NAME.findall(node.value)]
    assert written == []


def test_every_switch_the_configurations_and_the_makefile_read_is_in_the_list():
    """mkdocs.yml's `!ENV` switches, and those the Makefile and the workflows set."""
    names = {value for name, value in vars(switches).items() if name.isupper() and isinstance(value, str)}
    files = [REPO / "Makefile", *REPO.glob("mkdocs*.yml"), *(REPO / ".github" / "workflows").glob("*.yml")]
    used = {f"{path.name}: {n}" for path in files for n in SWITCH_NAME.findall(path.read_text(encoding="utf-8"))}
    assert {entry for entry in used if entry.split(": ")[1] not in names} == set()
    read = {entry.split(": ")[1] for entry in used}
    assert {switches.SITE_URL, switches.SITE_URL_ZH, switches.VERSION_PROVIDER} <= read


def test_an_empty_setting_is_no_setting(monkeypatch):
    monkeypatch.setenv(switches.BLOCK_TIMEOUT, "")
    assert switches.value(switches.BLOCK_TIMEOUT) is None
    monkeypatch.setenv(switches.CACHE, "0")
    assert switches.off(switches.CACHE) and not switches.off(switches.EXECUTE)
