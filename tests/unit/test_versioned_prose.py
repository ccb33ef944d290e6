import re

import pytest

from handbook.versioned_prose import VersionedProseError, render, render_keeping_lines

# Synthetic data: the releases a condition is evaluated for

PAGE = "a\n<!-- if torch >= 2.14 -->\nnew\n<!-- else -->\nold\n<!-- end if -->\nb\n"


def test_branch_follows_the_release():
    assert render(PAGE, "2.14.1") == "a\nnew\nb\n"
    assert render(PAGE, "2.13.0") == "a\nold\nb\n"


def test_without_else_and_with_exact_match():
    page = "<!-- if torch == 2.13 -->\nonly 2.13\n<!-- end if -->\n"
    assert render(page, "2.13.0+cpu") == "only 2.13\n"
    assert render(page, "2.14.1") == ""


def test_keeping_lines_blanks_what_is_left_out():
    assert render_keeping_lines(PAGE, "2.14.1") == "a\n\nnew\n\n\n\nb\n"
    assert render_keeping_lines(PAGE, "2.13.0") == "a\n\n\n\nold\n\nb\n"
    for release in ("2.13.0", "2.14.1"):
        kept = render_keeping_lines(PAGE, release).splitlines()
        assert len(kept) == len(PAGE.splitlines()) and kept[-1] == "b"


def test_branch_follows_the_python():
    page = "gc\n<!-- if python >= 3.13 -->\nlater\n<!-- else -->\nsooner\n<!-- end if -->\n"
    assert render(page, "2.15.0", "3.13.0") == "gc\nlater\n"
    assert render(page, "2.15.0", "3.12") == "gc\nsooner\n"
    assert render(page, "2.15.0") == "gc\nsooner\n"  # the Python the recordings are made with


@pytest.mark.parametrize(
    "page, line, problem",
    [
        ("a\n<!-- if torch >= banana -->\nnew\n<!-- end if -->\n", 2, "is not a condition this page can use"),
        ("a\n<!-- if torch >= 2.14 -->\nnew\n", 2, "this 'if' has no '<!-- end if -->' below it"),
        ("a\n<!-- if torch >= 2.14 -->\nnew\n<!-- endif -->\n", 4, "is not a condition this page can use"),
        ("<!--if torch>=2.14-->\nnew\n<!-- end if -->\n", 1, "is not a condition this page can use"),
        ("  <!-- if python >= 3.13 -->\nnew\n<!-- end if -->\n", 1, "is not a condition this page can use"),
        ("a\n<!-- else -->\nold\n<!-- end if -->\n", 2, "'<!-- else -->' without an 'if' above it"),
        (PAGE.replace("new\n", "<!-- if torch < 3 -->\n"), 3, "an 'if' inside the 'if' of line 2"),
        (PAGE.replace("old\n", "<!-- else -->\n"), 5, "a second '<!-- else -->' for the 'if' of line 2"),
    ],
)
def test_a_condition_that_cannot_be_read_names_its_line_instead_of_showing_both_branches(page, line, problem):
    for shown in (render, render_keeping_lines):
        with pytest.raises(VersionedProseError, match=re.escape(f"docs/p.md:{line}: ") + ".*" + re.escape(problem)):
            shown(page, "2.14.1", where="docs/p.md")


def test_an_ordinary_comment_and_text_after_end_if_are_left_alone():
    page = "<!-- if you read this, hello -->\n<!-- if torch >= 2.14 -->\nnew\n<!-- end if --> After.\n"
    assert render(page, "2.14.1") == "<!-- if you read this, hello -->\nnew\n After.\n"


SHOWN_IN_A_FENCE = (
    "How to write one:\n\n```text\n<!-- if torch >= 2.14 -->\nText for 2.14.\n<!-- end if -->\n```\n\n"
    "<!-- if torch >= 2.14 -->\nnew\n<!-- else -->\nold\n<!-- end if -->\n"
)


def test_a_condition_shown_in_a_code_fence_is_an_example_and_stays_as_written():
    shown = "```text\n<!-- if torch >= 2.14 -->\nText for 2.14.\n<!-- end if -->\n```\n"
    for release in ("2.13.0", "2.14.1"):
        assert render(SHOWN_IN_A_FENCE, release).startswith("How to write one:\n\n" + shown)
    assert render(SHOWN_IN_A_FENCE, "2.14.1").endswith("```\n\nnew\n")
    assert render(SHOWN_IN_A_FENCE, "2.13.0").endswith("```\n\nold\n")
    kept = render_keeping_lines(SHOWN_IN_A_FENCE, "2.13.0").splitlines()
    assert len(kept) == len(SHOWN_IN_A_FENCE.splitlines()) and "<!-- end if -->" in kept


def test_a_half_condition_in_a_code_fence_is_no_error_and_stays_as_written():
    shown = "```text\n<!-- end if -->\n<!-- else -->\n```\n"
    for release in ("2.13.0", "2.14.1"):
        assert render(shown, release) == shown == render_keeping_lines(shown, release)


def test_a_fence_never_closed_is_named_like_a_bad_condition():
    with pytest.raises(VersionedProseError, match=r"^docs/a.md:2: the fence opened at line 2 is never closed$"):
        render("text\n```python\nprint(1)\n", "2.14.1", where="docs/a.md")
