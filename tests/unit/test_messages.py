"""`handbook.messages`: the build's words in each site language, one catalog, checked against the source.

The catalog's keys are found in the source as `ast` reads it: every literal passed to `words(...)`
(a `Words` however it is reached: `words`, `self.words`, `Words(language)(...)`) or marked with
`translatable(...)`.
"""

from __future__ import annotations

import ast
import re
import string
from pathlib import Path

import pytest

from handbook.messages import CATALOGS, ZH, Words, translatable

REPO = Path(__file__).resolve().parents[2]
CJK = re.compile(r"[\u4e00-\u9fff\u3000-\u303f\uff00-\uffef]")  # Chinese characters and punctuation
PLACEHOLDER = re.compile(r"\{[^{}]*\}")


def _is_words(function: ast.expr) -> bool:
    """`words(...)`, `self.words(...)`, `Words(language)(...)`, `translatable(...)`."""
    if isinstance(function, ast.Name):
        return function.id in {"words", "translatable"}
    if isinstance(function, ast.Attribute):
        return function.attr == "words"
    return isinstance(function, ast.Call) and isinstance(function.func, ast.Name) and function.func.id == "Words"


def translated_texts() -> dict[str, list[str]]:
    """Every literal the build translates -> where it is (`handbook/x.py:line`)."""
    found: dict[str, list[str]] = {}
    for path in sorted((REPO / "handbook").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and _is_words(node.func) and node.args:
                text = node.args[0]
                if isinstance(text, ast.Constant) and isinstance(text.value, str):
                    found.setdefault(text.value, []).append(f"{path.relative_to(REPO)}:{node.lineno}")
    return found


def placeholders(text: str) -> set[str]:
    """The names of `text`'s `str.format` fields."""
    return {name for _, name, _, _ in string.Formatter().parse(text) if name is not None}


def test_the_scan_finds_the_words_of_every_module_that_writes_onto_pages():
    where = {place.split(":")[0] for places in translated_texts().values() for place in places}
    for module in (
        "rendering.py",
        "notebooks.py",
        "plugin.py",
        "translations.py",
        "environment.py",
        "execution/status.py",
        "reports/site_report.py",
        "reports/what_changed.py",
        "sources/source_map.py",
        "sources/links.py",
    ):
        assert f"handbook/{module}" in where


def test_every_text_the_build_translates_has_a_chinese_entry():
    missing = {text: places for text, places in translated_texts().items() if text not in ZH}
    assert missing == {}


def test_every_chinese_entry_is_used():
    assert sorted(ZH.keys() - translated_texts().keys()) == []


@pytest.mark.parametrize("english", sorted(ZH))
def test_an_entry_has_its_english_texts_placeholders_and_is_chinese(english):
    assert placeholders(ZH[english]) == placeholders(english)
    assert ZH[english].format(**dict.fromkeys(placeholders(english), 1))  # it formats, as words(...) will
    if re.search(r"[A-Za-z]", PLACEHOLDER.sub("", english)):  # words, not only values and punctuation
        assert CJK.search(ZH[english]), ZH[english]


def test_words_fill_placeholders_in_the_language_and_fall_back_to_english():
    assert Words("zh")("Output changed in torch {version}", version="2.15") == "torch 2.15 中输出有变化"
    assert Words()("Output changed in torch {version}", version="2.15") == "Output changed in torch 2.15"
    assert Words("zh")("No entry for {this}.", this="x") == "No entry for x."
    assert Words("fr")("ran in this build.") == "ran in this build."  # a language without a catalog
    assert translatable("ran in this build.") == "ran in this build."
    assert set(CATALOGS) == {"zh"}


def test_every_text_given_to_words_is_one_the_scan_can_read():
    """A literal, or a name or attribute holding a text marked `translatable` where it is written; an
    f-string or a conditional would hide its texts from the catalog's checks."""
    unreadable = []
    for path in sorted((REPO / "handbook").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and _is_words(node.func) and node.args:
                if not isinstance(node.args[0], ast.Constant | ast.Name | ast.Attribute):
                    unreadable.append(f"{path.relative_to(REPO)}:{node.lineno}")
    assert unreadable == []
