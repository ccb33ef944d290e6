"""The Chinese edition's house style, checked on its prose (CONTRIBUTING.md, "The Chinese edition"):
one term per concept, and one convention for punctuation and spacing.

Prose here is a page's text outside fences, with inline code, link targets, HTML comments (quotes,
marks), heading ids and admonition titles' quotes set aside; the build's own Chinese words
(`handbook.messages.ZH`) are checked as prose too. Each rule names what to write instead.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from handbook.markdown_structure import prose_lines
from handbook.messages import ZH

REPO = Path(__file__).resolve().parents[2]
PAGES = sorted((REPO / "docs-zh").glob("*.md"))
HAN = r"\u4e00-\u9fff"

# One term per concept: a variant the edition once used, and the term it uses instead (the glossary,
# docs/glossary.md, says which and why where it is not obvious).
VARIANTS = {
    "降级": "lowering (keep the English; 降级 reads as downgrade)",
    "组合算子": "复合算子 (composite)",
    "组合（composite）": "复合（composite）",
    "逐点": "逐元素 (pointwise)",
    "直通": "fallthrough (kept in English)",
    "录制": "记录 (a recorded output); 捕获 (a CUDA Graph)",
    "栈回溯": "调用栈 (a C++ stack trace)",
    "分派": "分发 (dispatch)",
    "子解释器": "子进程 (a child process; 子解释器 is PEP 554's sub-interpreter)",
    "死循环": "引用循环 (a reference cycle; 死循环 is an infinite loop)",
    "引用环": "引用循环 (a reference cycle)",
    "源码地图": "源码索引 (the Source map page)",
    "本版网站": "本网站版本 (edition)",
    "这一版网站": "本网站版本 (edition)",
    "本版本": "本网站版本 (edition) or 这个 torch 版本",
    "规范化程序": "规范化器 (normaliser)",
    "release 构建": "发布版（release）构建",
    "pre-hook": "前置钩子",
    "CUDA graph": "CUDA Graph (NVIDIA's spelling)",
    "CUDA 图": "CUDA Graph",
    "张 GPU": "块 GPU",
    "所附的声明": "论断 (claim; 声明 is a declaration)",
    "断言的": "论断 (claim) where a measured value's bound is meant; 断言 is an assertion",
    "这个版本": "这个 torch 版本, or 本网站版本 (edition)",
    "三个版本": "三个 torch 版本",
    "构建版本": "构建 (a CUDA build, a CPU build)",
    "激活内存": "激活值 (activations)",
    "include 集合": "包含集合 (include set)",
    "问题是：": "问题： (a section's lead-in, one form)",
    "实践要点：": "实践中： (a section's practical note, one form)",
}

# Punctuation and spacing (中文文案排版指北): full-width punctuation in Chinese text, one space between
# Chinese and Latin words, digits or code, none beside full-width punctuation.
RULES = {
    "a space between Chinese and Latin, digits or code": re.compile(rf"[{HAN}][A-Za-z0-9`]|[A-Za-z0-9`%][{HAN}]"),
    "no space beside full-width punctuation": re.compile(
        r" [，。；：？！、）”』」]|[（“] |[，。；：？！、）”] (?=[^\s*_|])"
    ),
    "full-width punctuation after Chinese (，；：？！)": re.compile(rf"[{HAN}][,;:?!](?=\s|$|[{HAN}])"),
    "full-width parentheses around an English gloss: 切向量（tangent）": re.compile(
        rf"[{HAN}] ?\([A-Za-z][A-Za-z \-]*\)"
    ),
    "Chinese quotes “”, not ASCII or 「」": re.compile(r"[「」『』]|(?<![=\w])\"(?=[^\"]*[" + HAN + r"])"),
    "a 0-based index after its noun (维度 0、步 3、行 0 到 2), not an ordinal (第 0 维)": re.compile(r"第 ?0(?![\d.])"),
    "一个……: a Chinese ellipsis": re.compile(rf"[{HAN}]\.\.\.|\.\.\.[{HAN}]"),
}

SET_ASIDE = re.compile(r"`[^`]*`|\]\([^)]*\)|<!--.*?-->|\{#[^}]*\}|\w+=\"[^\"]*\"|^(\s*)(!!!|\?\?\?\+?|===)\s.*$")


def set_aside(line: str) -> str:
    """`line` with code as `X`, a quoted value (`<!-- out ... -->`) as the Latin word it becomes, and
    link targets, marks, heading ids, attributes and admonition titles left out."""

    def replacement(match: re.Match) -> str:
        text = match.group(0)
        if text.startswith("`"):
            return "`X`"
        return "Q" if text.startswith("<!-- out ") else ("]" if text.startswith("](") else "")

    return SET_ASIDE.sub(replacement, line)


def prose(text: str) -> list[tuple[int, str]]:
    """(1-based line, the line's prose) for each prose line of a page, code and markup set aside."""
    lines = text.splitlines()
    keep = prose_lines(lines)
    out = []
    for number, (line, is_prose) in enumerate(zip(lines, keep, strict=True), 1):
        if not is_prose or line.lstrip().startswith(("--8<--", "|---", "<", "```")):
            continue
        out.append((number, set_aside(line)))
    return out


def problems(where: str, lines: list[tuple[int, str]]) -> list[str]:
    found = []
    for number, line in lines:
        for variant, instead in VARIANTS.items():
            if variant in line:
                found.append(f"{where}:{number}: {variant!r}: write {instead}")
        for rule, pattern in RULES.items():
            if match := pattern.search(line):
                found.append(f"{where}:{number}: {rule}: {line[max(0, match.start() - 12) : match.end() + 12]!r}")
    return found


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_each_chinese_page_uses_one_term_per_concept_and_the_house_punctuation(page):
    found = problems(f"docs-zh/{page.name}", prose(page.read_text(encoding="utf-8")))
    assert not found, "\n".join(found)


def test_the_builds_own_chinese_words_follow_the_same_terms():
    found = problems("handbook/messages.py", [(0, set_aside(text)) for text in ZH.values()])
    assert not found, "\n".join(found)


def test_the_rules_find_what_they_name():
    bad = "它用 lowering降级，结果 (tangent) 与 “flash” 内核相同,见 x\n"
    found = problems("demo", prose(bad))
    assert len(found) == 5, found
    assert not problems("demo", prose("它用 lowering（降低），切向量（tangent）与“flash”内核相同，见 `x`。\n"))
