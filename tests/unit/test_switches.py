"""The build's environment switches: named once, and ARCHITECTURE.md's table lists exactly the documented ones."""

from __future__ import annotations

import ast
import dataclasses
import os
import re
from pathlib import Path

import pytest

from handbook import switches
from handbook.errors import InputError

REPO = Path(__file__).resolve().parents[2]


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


def test_an_empty_setting_is_no_setting():
    assert switches.read({switches.BLOCK_TIMEOUT: ""}).block_timeout is None
    settings = switches.read({switches.CACHE: "0", switches.EXECUTE: ""})
    assert not settings.cache and settings.execute


def test_the_architecture_table_says_which_switches_change_a_pages_run():
    """The role column of the table is the `limit` of each switch's one definition."""
    text = (REPO / "ARCHITECTURE.md").read_text(encoding="utf-8")
    table = text[text.index("## Switches") :].split("\n## ", 1)[0]
    rows = re.findall(r"^\| `([A-Z_]+)=.*\| (yes|no) \|$", table, re.MULTILINE)
    assert [name for name, changes in rows if changes == "yes"] == [
        name for name in switches.LIMITS if name in switches.DOCUMENTED
    ]
    assert [name for name, _ in rows] == list(switches.DOCUMENTED)


def test_settings_have_one_field_per_switch_and_the_lists_derive_from_the_definitions():
    assert [field.name for field in dataclasses.fields(switches.Settings)] == [s.field for s in switches.SWITCHES]
    assert switches.ALL == tuple(s.name for s in switches.SWITCHES)
    named = {value for name, value in vars(switches).items() if name.isupper() and isinstance(value, str)}
    assert {value for value in named if SWITCH_NAME.fullmatch(value)} == set(switches.ALL)  # each one defined
    assert switches.LIMITS == tuple(s.name for s in switches.SWITCHES if s.limit)
    assert switches.DOCUMENTED == tuple(s.name for s in switches.SWITCHES if s.documented)
    assert list(switches.read({}).limits()) == list(switches.LIMITS)


def test_every_switch_is_parsed_into_its_field():
    environ = {
        switches.BLOCK_TIMEOUT: "7.5",
        switches.PAGE_MEMORY: "2G",
        switches.CACHE: "0",
        switches.EXECUTE: "1",
        switches.CACHE_DIR: "/tmp/caches",
        switches.READ_ONLY_TREE: "0",
        switches.COMPILE_LOCK: "/tmp/lock",
        switches.PAGE_READ_ONLY: os.pathsep.join(["/a", "", "/b"]),
        switches.PAGE_VARIABLES: "SECRET,,OTHER",
        switches.PAGE_WRITABLE: "/w",
        switches.GOLDENS_KILL_AT: "staged",
    }
    settings = switches.read(environ)
    assert (settings.block_timeout, settings.page_memory) == (7.5, 2 * 2**30)
    assert (settings.cache, settings.execute, settings.read_only_tree) == (False, True, False)
    assert settings.cache_dir == Path("/tmp/caches") and settings.compile_lock == "/tmp/lock"
    assert settings.page_read_only == ("/a", "/b") and settings.page_writable == ("/w",)
    assert settings.page_variables == ("SECRET", "OTHER") and settings.goldens_kill_at == "staged"
    assert switches.read({}) == switches.Settings()
    with pytest.raises(dataclasses.FrozenInstanceError):
        settings.cache = True  # type: ignore[misc]


@pytest.mark.parametrize(
    "name, value, message",
    [
        ("DOCS_BLOCK_TIMEOUT", "nan", "DOCS_BLOCK_TIMEOUT='nan' is not a number of seconds (finite, above 0)"),
        ("DOCS_BLOCK_TIMEOUT", "0", "DOCS_BLOCK_TIMEOUT='0' is not a number of seconds (finite, above 0)"),
        ("DOCS_PAGE_MEMORY", "0K", "DOCS_PAGE_MEMORY='0K' is not a size such as 512M or 2G (above 0)"),
        ("DOCS_PAGE_MEMORY", "plenty", "DOCS_PAGE_MEMORY='plenty' is not a size such as 512M or 2G (above 0)"),
    ],
)
def test_a_bad_setting_is_refused_when_the_switches_are_read(name, value, message):
    with pytest.raises(switches.SettingError) as refused:
        switches.read({name: value})
    assert str(refused.value) == message
    assert isinstance(refused.value, InputError)


def _reads_of_the_environment(tree: ast.AST) -> list[int]:
    """Lines that read a switch from the environment: `switches.value/off(...)`, or `environ.get` or
    `environ[...]` (a read) with a switch's constant."""
    lines = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            owner = node.func.value
            if isinstance(owner, ast.Name) and owner.id == "switches" and node.func.attr in ("value", "off"):
                lines.append(node.lineno)
            if node.func.attr == "get" and "environ" in ast.unparse(owner) and "switches." in ast.unparse(node):
                lines.append(node.lineno)
        if isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Load):
            if "environ" in ast.unparse(node.value) and "switches." in ast.unparse(node.slice):
                lines.append(node.lineno)
    return lines


def test_no_module_reads_a_switch_where_it_acts():
    """Switches are read once, by `switches.read()` at an entry, and passed down as `Settings`."""
    found = []
    for path in sorted((REPO / "handbook").rglob("*.py")):
        if path.name == "switches.py":
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        found += [f"{path.relative_to(REPO)}:{line}" for line in _reads_of_the_environment(tree)]
    assert found == []


def test_the_value_passed_down_is_what_acts_not_the_environment(monkeypatch, tmp_path):
    """An inner function given the entry's settings does not read the environment again (it may
    have changed since the entry, or never have been the caller's)."""
    from handbook.environment import cache_root
    from handbook.execution import confinement, runner

    monkeypatch.setenv(switches.BLOCK_TIMEOUT, "not a number")
    monkeypatch.setenv(switches.PAGE_MEMORY, "plenty")
    monkeypatch.setenv(switches.CACHE_DIR, str(tmp_path / "from-the-environment"))
    given = switches.Settings(block_timeout=9.0, page_memory=2**30, cache_dir=tmp_path / "given", read_only_tree=False)
    assert runner.block_timeout({}, given) == 9.0
    assert runner.limits(settings=given).page_memory == 2**30
    assert cache_root(tmp_path, given) == tmp_path / "given"
    assert confinement.expected(given) is False
    with pytest.raises(switches.SettingError):  # and with none given, the call reads them at its entry
        runner.limits()
