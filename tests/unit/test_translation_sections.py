"""A translation's sections against their originals' revisions, in-process. Built translations:
tests/site/test_translations.py."""

from __future__ import annotations

from translation_pages import ORIGINAL, TRANSLATED

from handbook import translations
from handbook.translations import TOP, marked, outdated_sections, section_texts, with_notices


def test_sections_are_known_by_the_anchor_id_both_languages_share():
    assert list(section_texts(ORIGINAL)) == [TOP, "views-and-copies", "the-strides"]
    assert list(section_texts(TRANSLATED)) == [TOP, "views-and-copies", "the-strides"]


def test_a_marked_translation_is_up_to_date_until_its_original_section_changes():
    page = marked(ORIGINAL, TRANSLATED)
    assert page.count("<!-- translates ") == 3
    assert outdated_sections("t.md", ORIGINAL, page) == []
    assert marked(ORIGINAL, page) == page  # marking again changes nothing
    edited = ORIGINAL.replace("A view shares memory.", "A view shares its base's memory.")
    [outdated] = outdated_sections("t.md", edited, page)
    assert (outdated.section, outdated.current) == (
        "views-and-copies",
        translations.revision(section_texts(edited)["views-and-copies"][1]),
    )
    assert "the original changed" in outdated.reason


def test_unmarked_missing_and_extra_sections_are_outdated():
    assert {o.section for o in outdated_sections("t.md", ORIGINAL, TRANSLATED)} == {
        TOP,
        "views-and-copies",
        "the-strides",
    }
    page = marked(ORIGINAL, TRANSLATED)
    fewer = page.split("## 步长")[0]
    assert [o.section for o in outdated_sections("t.md", ORIGINAL, fewer)] == ["the-strides"]
    extra = page + "\n## 多出的一节 {#extra}\n\n<!-- translates 0123456789ab -->\n"
    [found] = outdated_sections("t.md", ORIGINAL, extra)
    assert found.section == "extra" and found.reason == "the original has no such section"


def test_an_outdated_sections_notice_sits_under_its_heading_and_links_to_the_original():
    page = marked(ORIGINAL, TRANSLATED)
    shown = with_notices(
        page, {"views-and-copies": translations.notice_line("zh", "2026-12-06", "https://x/t/#v")}, "zh"
    )
    after = shown.split("## 视图与副本 {#views-and-copies}")[1]
    assert after.lstrip().startswith('!!! warning "本节译文已过时"')
    assert "2026-12-06" in after.split("## 步长")[0] and "(https://x/t/#v)" in after
    assert "本节译文已过时" not in shown.split("## 视图与副本")[0]


def test_a_section_the_translation_has_no_heading_for_is_missing():
    page = marked(ORIGINAL, TRANSLATED)
    assert translations.missing_sections(ORIGINAL, page) == []
    dropped = page.replace("## 步长 {#the-strides}\n", "")
    assert translations.missing_sections(ORIGINAL, dropped) == [("the-strides", 13)]
