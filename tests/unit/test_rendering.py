import re
import textwrap

import markdown
import markdown_exec
import pytest

from handbook.execution.blocks import Block
from handbook.execution.results import BlockResult
from handbook.execution.status import Status
from handbook.rendering import MAX_CHARS, MAX_LINES, PageRenderer, RefusedBlock, cut, how_shown, other_python_note

# Synthetic data: a made-up GPU recording's provenance


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
        extensions=["attr_list", "md_in_html", "pymdownx.superfences", "pymdownx.tabbed"],
        extension_configs={
            "pymdownx.superfences": {"custom_fences": [fence]},
            "pymdownx.tabbed": {"alternate_style": True},
        },
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


def under(renderer: PageRenderer, result: BlockResult) -> str:
    """What goes under a block, converted as a page converts it."""
    extensions = ["attr_list", "pymdownx.superfences", "pymdownx.highlight"]
    return markdown.Markdown(extensions=extensions).convert(renderer.output_markdown(result, "text"))


def test_output_is_boxed_apart_from_the_source_with_its_origin_linked_under_it():
    renderer = PageRenderer(
        "ch.md", [BlockResult(Status.OK, "42", block=BLOCK)], repo_url="https://github.com/o/h/", commit="abc123"
    )
    html = rendered(renderer, '```python exec="on"\nprint(1)\n```\n')
    assert html.index("print") < html.index("handbook-output")  # the source comes first
    box = html[html.index('<div class="handbook-output') :]
    assert '<span class="filename">Output</span>' in box and "42" in box
    assert (
        '<p class="handbook-origin" data-search-exclude=""><a href="https://github.com/o/h/blob/abc123/docs/ch.md#L3" '
        'title="This block in the handbook&#39;s repository"><code>docs/ch.md:3</code></a>: ran in this build.</p>'
    ) in box  # under the output


def test_a_figure_is_an_img_under_the_output_with_its_alt_text_escaped():
    drawing = Block(
        "ch.md", 1, "bars", "print(1)", "docs/ch.md", 3, 2, options={"figure": "b.svg", "alt": 'A <b> "bar"'}
    )
    result = BlockResult(Status.OK, "42", block=drawing, figure="<svg/>")
    renderer = PageRenderer("ch.md", [result], figure_urls={"bars": "../figures/ch/bars.svg"})
    html = rendered(renderer, '```python exec="on" figure="b.svg" alt="A bar"\nprint(1)\n```\n')
    figure = '<figure class="handbook-figure"><img src="../figures/ch/bars.svg" alt="A &lt;b&gt; &quot;bar&quot;"'
    folded = '<details class="handbook-code">\n<summary>The code that draws this figure</summary>'
    # The figure first, the code that draws it folded under it, then what the block printed.
    assert html.index(figure) < html.index(folded) < html.index("handbook-output") < html.index("handbook-origin")
    assert html.count('<span class="nb">print</span>') == 1  # the source once, in the fold, not above too
    assert 'figure="' not in html and 'alt="A bar"' not in html  # the engine's options are not attributes


def test_inside_tabs_the_output_keeps_its_box_and_the_origin_its_paragraph():
    renderer = PageRenderer("ch.md", [BlockResult(Status.OK, "42", block=BLOCK)])
    html = rendered(renderer, '```python exec="on" source="tabbed-left"\nprint(1)\n```\n')
    assert 'class="tabbed-set' in html and '<div class="handbook-output' in html
    assert "<p><p" not in html and "{:" not in html
    assert '<p class="handbook-origin" data-search-exclude=""><code>docs/ch.md:3</code>: ran in this build.</p>' in html


@pytest.mark.parametrize(
    ("status", "from_cache", "said"),
    [
        (Status.OK, False, "ran in this build."),
        (Status.CACHED, True, "ran in an earlier build; its run was reused from the execution cache."),
        (Status.RECORDED, False, "not run in this build; shown from its recording (a render-only preview)."),
        (Status.DRIFT, True, "ran in an earlier build; its run was reused from the execution cache."),
    ],
)
def test_the_origin_line_says_how_the_output_got_onto_the_page(status, from_cache, said):
    shown = under(PageRenderer("ch.md", []), BlockResult(status, "out", block=BLOCK, from_cache=from_cache))
    assert (
        f'<p class="handbook-origin" data-search-exclude=""><code>docs/ch.md:3</code>: {said}</p>' in shown
    )  # no repository: no link


def test_without_a_commit_or_for_an_uncommitted_file_the_origin_is_plain_text():
    block = Block("ch.md", 1, "b", "print(1)", "snippets/custom_ops/__init__.py", 3, 2)
    result = BlockResult(Status.OK, "out", block=block)
    for renderer in (
        PageRenderer("ch.md", [], repo_url="https://github.com/o/h"),
        PageRenderer(
            "ch.md", [], repo_url="https://github.com/o/h", commit="c", uncommitted=frozenset({block.origin_file})
        ),
    ):
        shown = under(renderer, result)
        assert "<a " not in shown and "<strong>" not in shown
        assert "<code>snippets/custom&#95;ops/&#95;&#95;init&#95;&#95;.py:3</code>: ran in this build." in shown


def test_a_gpu_block_has_one_note_under_its_output_naming_the_gpu_and_its_origin():
    from handbook.execution.recordings import GpuRecording

    gpu = GpuRecording(device="NVIDIA H200", torch="2.13.0+cu130", date="2026-11-29", output="0")
    renderer = PageRenderer("ch.md", [], colab_url="https://colab.research.google.com/github/o/h/x.ipynb")
    shown = under(renderer, BlockResult(Status.GPU_RECORDED, "0", block=BLOCK, gpu=gpu))
    assert shown.count("<p class=") == 1 and shown.index("handbook-output") < shown.index("handbook-origin")
    assert (
        '<p class="handbook-origin handbook-gpu" data-search-exclude=""><code>docs/ch.md:3</code>: '
        "GPU-only block, not run in this build. "
        "Output recorded on NVIDIA H200 with torch 2.13.0+cu130 on 2026-11-29. To run it on a GPU yourself, "
        '<a href="https://colab.research.google.com/github/o/h/x.ipynb">open this chapter in Colab</a>'
    ) in shown
    missing = under(renderer, BlockResult(Status.GPU_MISSING, "", block=BLOCK))
    assert "handbook-output" not in missing and missing.count("<p class=") == 1
    assert "no output has been recorded on a GPU yet" in missing


def test_each_rendered_block_has_an_id_before_it_and_the_renderer_names_it():
    renderer = PageRenderer("ch.md", [BlockResult(Status.OK, "1\n", block=BLOCK)])
    html = rendered(renderer, '```python exec="on"\nprint(1)\n```\n')
    assert html.index(f'<div id="{BLOCK.anchor}"></div>') < html.index("print")
    assert renderer.anchors() == {BLOCK.anchor}


# Three English words in a row: a sentence (or its rest) left in English. Code, paths and values are
# taken out before it is looked for: `(measured; claim: …)` is the outputs' own mark.
ENGLISH = re.compile(r"[A-Za-z]{2,}(?:[ ,;]+[A-Za-z]{2,}){2,}")


def prose_of(html: str) -> str:
    """The words a reader reads in `html`: no code, no output box, no tags, no attribute values kept."""
    html = re.sub(r'<div class="handbook-output.*?</div>', "", html, flags=re.DOTALL)
    html = re.sub(r"<(code|pre)>.*?</\1>", "", html, flags=re.DOTALL)
    titles = " ".join(re.findall(r'title="([^"]*)"', html))
    return re.sub(r"<[^>]+>", " ", html) + " " + titles


def test_in_chinese_every_note_under_a_block_is_chinese():
    from handbook.execution.recordings import GpuRecording

    machine = {"cpu": "Xeon", "arch": "x86_64", "capability": "AVX2", "threads": 1}
    measured = "ratio: 1.5x (measured; claim: between 1 and 2)\n" * 2 + "\n".join(map(str, range(MAX_LINES + 5)))
    gpu = GpuRecording(device="H200", torch="2.13.0+cu130", date="2026-11-29", output="0")
    renderer = PageRenderer(
        "ch.md",
        [],
        repo_url="https://github.com/o/h",
        commit="c",
        colab_url="https://colab/x",
        other_pythons={1: {"3.12": "x", "3.13": "x"}},
        changed={1: ("2.15", "../what-changed/#x")},
        language="zh",
    )
    results = [
        BlockResult(Status.OK, measured, block=BLOCK, machine=machine, recording="recordings/b.txt"),
        BlockResult(Status.CACHED, measured, block=BLOCK, from_cache=True, machine=machine),
        BlockResult(Status.RECORDED, "ratio: 1.5x (measured; claim: between 1 and 2)", block=BLOCK),
        BlockResult(Status.DRIFT, "x" * 20_000, block=BLOCK),
        BlockResult(Status.GPU_RECORDED, "0", block=BLOCK, gpu=gpu),
        BlockResult(Status.GPU_MISSING, "", block=BLOCK),
        BlockResult(Status.OK, "0", block=BLOCK, predicted=BlockResult(Status.GPU_RECORDED, "0", block=BLOCK, gpu=gpu)),
        BlockResult(Status.OK, "0", block=BLOCK, predicted=BlockResult(Status.GPU_MISSING, "", block=BLOCK)),
    ]
    for result in results:
        shown = under(renderer, result)
        assert re.search(r"[\u4e00-\u9fff]", prose_of(shown)), shown
        assert ENGLISH.findall(prose_of(shown)) == [], shown
    assert '<span class="filename">输出</span>' in rendered(
        PageRenderer("ch.md", [BlockResult(Status.OK, "42", block=BLOCK)], language="zh"),
        '```python exec="on"\nprint(1)\n```\n',
    )


def test_in_chinese_a_failed_block_and_each_status_say_so_in_chinese():
    renderer = PageRenderer("ch.md", [], show_failures=True, language="zh")
    for status in (Status.RAISED, Status.TIMEOUT):
        shown = renderer.output_markdown(BlockResult(status, "", error="boom", block=BLOCK), "text")
        assert 'title="此代码块运行失败"' in shown
        assert ENGLISH.findall(prose_of(shown.split("\n\n")[-1])) == []
    assert how_shown(BlockResult(Status.MEMORY, "", block=BLOCK), "zh") == "页面超出了内存上限。"
    assert other_python_note(["3.12", "3.13"], "x", "zh").startswith(
        '<details class="handbook-python"><summary>Python 3.12、3.13 的输出与此不同</summary>'
    )
    assert cut("\n" * 100, "zh")[1] == "另有 21 行未显示"  # 101 lines, 80 shown
