from handbook.execution.blocks import Block
from handbook.execution.pipeline import BlockResult
from handbook.execution.status import Status
from handbook.rendering import MAX_CHARS, MAX_LINES, PageRenderer, cut


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
    shown = renderer.output_markdown(BlockResult(block, Status.OK, "mine"), "text")
    assert "Python 3.11 and 3.12 print this differently</summary><pre><code>old</code>" in shown
    assert "Python 3.13 prints this differently</summary><pre><code>&lt;new&gt;</code>" in shown
