import textwrap

import markdown
import markdown_exec
import pytest

from handbook.execution.blocks import Block
from handbook.execution.results import BlockResult
from handbook.execution.status import Status
from handbook.rendering import MAX_CHARS, MAX_LINES, PageRenderer, RefusedBlock, cut


def test_short_output_is_whole():
    assert cut("a\nb") == ("a\nb", "")


def test_long_output_is_cut_by_lines():
    shown, left_out = cut("\n".join(f"line {i}" for i in range(200)))
    assert shown.splitlines()[-1] == f"line {MAX_LINES - 1}"
    assert left_out == "120 more line(s) not shown"


def test_one_huge_line_is_cut_by_characters():
    shown, left_out = cut("x" * 5_000_000)
    assert shown == "x" * MAX_CHARS
    assert left_out == "4,990,000 more character(s) not shown"


def test_long_lines_are_cut_at_a_line_break():
    shown, left_out = cut(("y" * 999 + "\n") * 50)
    assert shown == "\n".join(["y" * 999] * 10)
    assert left_out == f"{50_000 - len(shown):,} more character(s) not shown"


def test_cutting_is_linear_on_megabytes(timed):
    seconds = timed("""
        import time
        from handbook.rendering import cut
        texts = ["x" * 2**22, "\\n" * 2**22, ("y" * 999 + "\\n") * 2**12]
        started = time.perf_counter()
        for text in texts:
            cut(text)
        print(time.perf_counter() - started)
    """)
    assert seconds < 10


def test_other_pythons_with_the_same_output_share_one_note():
    block = Block("ch.md", 1, "b", "print(1)", "docs/ch.md", 3, 2)
    renderer = PageRenderer("ch.md", [], other_pythons={1: {"3.11": "old", "3.12": "old", "3.13": "<new>"}})
    shown = renderer.output_markdown(BlockResult(Status.OK, "mine", block=block), "text")
    assert "Python 3.11 and 3.12 print this differently</summary><pre><code>old</code>" in shown
    assert "Python 3.13 prints this differently</summary><pre><code>&lt;new&gt;</code>" in shown


def rendered(renderer: PageRenderer, page: str) -> str:
    """`page` converted as the site converts it, its Python fences rendered by `renderer`."""
    markdown_exec.formatters["python"] = renderer.format_python
    fence = {
        "name": "python",
        "class": "python",
        "validator": markdown_exec.validator,
        "format": markdown_exec.formatter,
    }
    converter = markdown.Markdown(
        extensions=["attr_list", "md_in_html", "pymdownx.superfences"],
        extension_configs={"pymdownx.superfences": {"custom_fences": [fence]}},
    )
    return converter.convert(textwrap.dedent(page))


BLOCK = Block("ch.md", 1, "b", "print(1)", "docs/ch.md", 3, 2)
FENCE_BREAKER = "x\n````````\n<script>alert(7)</script>\n<img src=x onerror=alert(1)>\n`````````````````\n"


@pytest.mark.parametrize("status", [Status.OK, Status.RAISED])
def test_output_and_error_text_cannot_end_their_fence(status):
    renderer = PageRenderer("ch.md", [BlockResult(status, FENCE_BREAKER, error=FENCE_BREAKER, block=BLOCK)])
    renderer.show_failures = True
    html = rendered(renderer, '```python exec="on"\nprint(1)\n```\n')
    assert "<script>" not in html and "<img" not in html
    assert "&lt;script&gt;alert(7)&lt;/script&gt;" in html and "`````````````````" in html


def test_a_source_holding_markdown_execs_fence_is_refused():
    block = Block("ch.md", 1, "b", 's = """\n````````\n<script>alert(7)</script>\n"""', "docs/ch.md", 3, 2)
    renderer = PageRenderer("ch.md", [BlockResult(Status.OK, "", block=block)])
    with pytest.raises(RefusedBlock, match=r"docs/ch.md, block 1 \(b\), docs/ch.md:3: the code holds a run of 8"):
        rendered(renderer, f'~~~python exec="on"\n{block.code}\n~~~\n')


def test_a_title_holding_a_double_quote_is_refused_not_shown_as_raw_text():
    renderer = PageRenderer("ch.md", [BlockResult(Status.OK, "ok", block=BLOCK)])
    with pytest.raises(RefusedBlock, match=r"docs/ch.md:3: the option title= holds a double quote"):
        rendered(renderer, """```python exec="on" title='say "hi"'\nprint(1)\n```\n""")


def test_a_title_in_single_quotes_is_written_back():
    renderer = PageRenderer("ch.md", [BlockResult(Status.OK, "ok", block=BLOCK)])
    html = rendered(
        renderer, """```python exec="on" title='it’s "fine"'\nprint(1)\n```\n""".replace('"fine"', "“fine”")
    )
    assert '<span class="filename">it’s “fine”</span>' in html


@pytest.mark.parametrize("option", ['result="<b>"', 'source="console"'])
def test_options_that_would_unfence_the_output_are_refused(option):
    renderer = PageRenderer("ch.md", [BlockResult(Status.OK, "<b>bold</b>", block=BLOCK)])
    with pytest.raises(RefusedBlock, match=r"docs/ch.md:3: "):
        rendered(renderer, f'```python exec="on" {option}\nprint(1)\n```\n')
