"""Values quoted from outputs: resolved per edition, and a clear failure when they cannot be."""

from __future__ import annotations

from html import escape

import pytest

from handbook.prose.quotes import resolve_quotes

# Synthetic data: a made-up output to quote from

OUTPUTS = {
    ("setup.md", "version"): "torch.__version__ : 2.15.0+cu132\nrows: 96",
    ("dispatch.md", "table"): "rows in the table: 97",
}


def output_of(page, block):
    return OUTPUTS.get((page, block))


def test_group_whole_match_and_other_page():
    markdown = (
        "The wheel `<!-- out version /__version__\\s*: (\\S+)/ -->` has <!-- out version /rows: \\d+/ -->,\n"
        "and add has <!-- out dispatch.md#table /table: (\\d+)/ -->.\n"
    )
    quoted = resolve_quotes(markdown, "setup.md", output_of, "docs")
    assert quoted.errors == []
    assert quoted.markdown == "The wheel `2.15.0+cu132` has rows: 96,\nand add has 97.\n"
    assert quoted.count == 3


def test_fenced_code_is_left_alone():
    markdown = "```text\n<!-- out version /rows: (\\d+)/ -->\n```\n"
    assert resolve_quotes(markdown, "setup.md", output_of, "docs").markdown == markdown


def test_each_unresolvable_quote_names_page_and_line():
    markdown = "ok\n<!-- out gone /x/ -->\n<!-- out version /nothing here/ -->\n<!-- out version /(/ -->\n"
    errors = resolve_quotes(markdown, "setup.md", output_of, "docs").errors
    assert errors[0].startswith("docs/setup.md:2: <!-- out gone /x/ -->: docs/setup.md has no block 'gone'")
    assert errors[1].startswith("docs/setup.md:3: ") and "printed nothing matching /nothing here/" in errors[1]
    assert errors[2].startswith("docs/setup.md:4: ") and "not a valid regular expression" in errors[2]


def test_a_translated_pages_errors_name_its_own_file():
    """The review's probe: a bad quote in docs-zh/tensors.md was reported as docs/tensors.md."""
    markdown = "# 张量\n\n值是 <!-- out nosuch /x/ -->。\n"
    errors = resolve_quotes(markdown, "tensors.md", lambda page, block: None, "docs-zh").errors
    assert errors == ["docs-zh/tensors.md:3: <!-- out nosuch /x/ -->: docs-zh/tensors.md has no block 'nosuch'"]


HOSTILE = "value: [x](javascript:alert(1)) <script>alert(7)</script> *b* {: onmouseover=alert(1) } `c` a\\*b\n# h"


def hostile_output(page, block):
    return HOSTILE if (page, block) == ("setup.md", "evil") else None


def test_a_value_in_prose_is_text_on_the_page():
    import markdown as python_markdown

    quoted = resolve_quotes("It says <!-- out evil /value: (.*\\n.*)/ --> here.\n", "setup.md", hostile_output, "docs")
    assert quoted.errors == []
    html = python_markdown.Markdown(extensions=["attr_list", "md_in_html", "tables"]).convert(quoted.markdown)
    assert "<script" not in html and "<a" not in html and "<em>" not in html and "<code>" not in html
    literal = HOSTILE.split(": ", 1)[1].replace("\n", " ")
    assert html == f"<p>It says {escape(literal, quote=False)} here.</p>"


def test_a_value_in_a_code_span_is_literal_and_one_holding_a_backtick_fails():
    quoted = resolve_quotes("Shown `<!-- out evil /(<script>.*?</script>)/ -->`.\n", "setup.md", hostile_output, "docs")
    assert quoted.errors == [] and quoted.markdown == "Shown `<script>alert(7)</script>`.\n"
    quoted = resolve_quotes("Shown `<!-- out evil /(`c`)/ -->`.\n", "setup.md", hostile_output, "docs")
    assert quoted.errors == [
        "docs/setup.md:1: <!-- out evil /(`c`)/ -->: the value '`c`' holds a backtick, which would end the code "
        "span around it"
    ]


@pytest.mark.parametrize(
    "line",
    [
        "Shown \\`<!-- out evil /(<script>.*?</script>)/ -->`.\n",  # an escaped backtick opens no span
        "Shown `<!-- out evil /(<script>.*?</script>)/ --> and no closer.\n",  # a span no run closes is none
        "Shown ``a` <!-- out evil /(<script>.*?</script>)/ -->`.\n",  # nor one another length closes
    ],
    ids=["escaped backtick", "no closer", "another length"],
)
def test_a_value_after_backticks_that_open_no_code_span_is_prose(line):
    import markdown as python_markdown

    quoted = resolve_quotes(line, "setup.md", hostile_output, "docs")
    assert quoted.errors == []
    html = python_markdown.Markdown(extensions=["attr_list", "md_in_html", "tables"]).convert(quoted.markdown)
    assert "<script>" not in html and "&lt;script&gt;alert(7)&lt;/script&gt;" in html


def test_a_runaway_pattern_is_stopped_and_named(timed):
    seconds = timed("""
        import time
        from handbook.prose.quotes import resolve_quotes
        started = time.perf_counter()
        quoted = resolve_quotes("<!-- out b /(a+)+$/ -->\\n", "p.md", lambda page, block: "a" * 40 + "!", "docs")
        assert quoted.errors == [
            "docs/p.md:1: <!-- out b /(a+)+$/ -->: the pattern ran past 2 s on block 'b''s output and was stopped "
            "(nested repeats such as (a+)+ backtrack without end); simplify it"
        ], quoted.errors
        assert resolve_quotes("<!-- out b /(a+)!/ -->", "p.md", lambda page, block: "a" * 40 + "!", "docs").errors == []
        print(time.perf_counter() - started)
    """)
    assert seconds < 10
