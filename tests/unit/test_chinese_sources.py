"""The Chinese edition's sources, without a build: every English page has its translation, with the
same blocks and sections, and no translated section is outdated. The built edition:
tests/site/test_chinese_edition.py."""

from __future__ import annotations

from pathlib import Path

from handbook.checks import outdated_translations
from handbook.execution.blocks import scan_docs
from handbook.mkdocs_config import load_site_config
from handbook.translations import section_texts

REPO = Path(__file__).resolve().parents[2]
ZH_CONFIG = load_site_config(REPO / "mkdocs.zh.yml")
EN_CONFIG = load_site_config(REPO / "mkdocs.yml")


def test_every_english_page_has_a_translation_with_the_same_blocks_and_sections():
    english = {page.path: page for page in scan_docs(REPO, EN_CONFIG.docs_dir)}
    chinese = {page.path: page for page in scan_docs(REPO, ZH_CONFIG.docs_dir)}
    assert set(chinese) == set(english)
    for path, page in english.items():
        ours = chinese[path]
        assert [(b.id, b.code, b.options) for b in ours.blocks] == [(b.id, b.code, b.options) for b in page.blocks], (
            path
        )
        assert list(section_texts((REPO / "docs-zh" / path).read_text())) == list(
            section_texts((REPO / "docs" / path).read_text())
        ), path
    assert set(ZH_CONFIG.titles) == set(EN_CONFIG.titles), "the two navigations list the same pages"
    assert list(ZH_CONFIG.titles) == list(EN_CONFIG.titles), "in the same order"


def test_no_chinese_section_is_outdated():
    """Each translated section names the revision of its English section as it is now (`make translations`)."""
    outdated = outdated_translations(REPO, ZH_CONFIG)
    assert not outdated, "\n".join(f"docs-zh/{o.page} § {o.section}: {o.reason}" for o in outdated)
