"""The site's languages: where each is published, the language menu's links, Chinese line breaks."""

from __future__ import annotations

import ast
import re
from pathlib import Path

from handbook import languages, messages
from handbook.languages import deploy_prefix, edition_path, page_alternates, without_soft_breaks

ALTERNATES = [
    {"name": "English", "link": "https://x.io/handbook/", "lang": "en"},
    {"name": "中文", "link": "https://x.io/handbook/zh/", "lang": "zh"},
]


def test_each_language_is_published_under_its_own_prefix():
    assert (deploy_prefix("en"), deploy_prefix("zh")) == ("", "zh/")


def test_the_menu_leads_to_the_same_page_of_the_same_edition():
    assert edition_path("https://x.io/handbook/zh/", "https://x.io/handbook/zh/2.13/") == "2.13/"
    assert edition_path("https://x.io/handbook/", "https://x.io/handbook/") == ""
    chinese = page_alternates(ALTERNATES, "zh", "https://x.io/handbook/zh/2.13/", "tensors/")
    assert [a["link"] for a in chinese] == [
        "https://x.io/handbook/2.13/tensors/",
        "https://x.io/handbook/zh/2.13/tensors/",
    ]
    english = page_alternates(ALTERNATES, "en", "https://x.io/handbook/2.15/", "")
    assert [a["link"] for a in english] == ["https://x.io/handbook/2.15/", "https://x.io/handbook/zh/2.15/"]
    assert [a["lang"] for a in english] == ["en", "zh"]


def test_a_line_break_between_chinese_characters_is_dropped_and_nothing_else_is():
    page = "# 标题\n\n第一行，\n第二行 `x`\nEnglish\n中文。\n\n- 列表，\n  续行\n- 第二项\n\n```python\n中\n文\n```\n"
    assert without_soft_breaks(page, "zh") == (
        "# 标题\n\n第一行，第二行 `x`\nEnglish\n中文。\n\n- 列表，续行\n- 第二项\n\n```python\n中\n文\n```\n"
    )
    assert without_soft_breaks(page, "en") == page


REPO = Path(__file__).resolve().parents[2]
# A language's facts, as strings: the table's, and nothing else may spell them (a dict key naming
# a catalog's language in messages.CATALOGS aside).
LANGUAGE_FACTS = {"en", "zh", "docs", "docs-zh", "labs", "labs-zh", "mkdocs.yml", "mkdocs.zh.yml"}


def test_no_module_but_the_table_spells_a_language_its_configuration_or_its_pages():
    spelled = []
    for path in sorted((REPO / "handbook").rglob("*.py")):
        if path.name == "languages.py":
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        catalog_keys = {
            id(key)
            for node in ast.walk(tree)
            if isinstance(node, ast.Assign) and any(getattr(t, "id", "") == "CATALOGS" for t in node.targets)
            for key in getattr(node.value, "keys", [])
        }
        # A lab's address in a built site, the same in every language's (`labs.PAGES`), is no language's.
        catalog_keys |= {
            id(node.value)
            for node in ast.walk(tree)
            if isinstance(node, ast.Assign) and any(getattr(t, "id", "") == "PAGES" for t in node.targets)
        }
        spelled += [
            f"{path.relative_to(REPO)}:{node.lineno}: {node.value!r}"
            for node in ast.walk(tree)
            if isinstance(node, ast.Constant) and node.value in LANGUAGE_FACTS and id(node) not in catalog_keys
        ]
    assert spelled == []


def test_each_language_is_its_configuration_as_mkdocs_reads_it():
    from handbook.mkdocs_config import load_site_config

    assert sorted(path.name for path in REPO.glob("mkdocs*.yml")) == sorted(languages.CONFIGS)
    for language in languages.LANGUAGES:
        config = load_site_config(REPO / language.config)
        assert (config.language, config.docs_dir) == (language.code, language.docs_dir)
    assert languages.DEFAULT == languages.LANGUAGES[0].code


def test_each_translation_has_its_catalog_of_the_builds_words():
    assert set(messages.CATALOGS) == {language.code for language in languages.TRANSLATIONS}


def test_the_makefile_builds_and_watches_each_language():
    """The Makefile keeps its own spelling (make reads no Python): it agrees with the table."""
    makefile = (REPO / "Makefile").read_text(encoding="utf-8")
    inputs = makefile[makefile.index("BUILD_INPUT_FILES :=") :].split("\n\n")[0]
    for language in languages.LANGUAGES:
        assert language.docs_dir in inputs.split() and language.config in inputs.split()
    assert set(re.findall(r"-f (mkdocs\S*\.yml)", makefile)) <= set(languages.CONFIGS)
    for language in languages.TRANSLATIONS:
        assert f"-f {language.config} --site-dir $(SITE)-{language.code}" in makefile
