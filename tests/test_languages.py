"""The site's languages: where each is published, the language menu's links, Chinese line breaks."""

from __future__ import annotations

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
