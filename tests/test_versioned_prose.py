from handbook.versioned_prose import render

PAGE = "a\n<!-- if torch >= 2.14 -->\nnew\n<!-- else -->\nold\n<!-- end if -->\nb\n"


def test_branch_follows_the_release():
    assert render(PAGE, "2.14.1") == "a\nnew\nb\n"
    assert render(PAGE, "2.13.0") == "a\nold\nb\n"


def test_without_else_and_with_exact_match():
    page = "<!-- if torch == 2.13 -->\nonly 2.13\n<!-- end if -->\n"
    assert render(page, "2.13.0+cpu") == "only 2.13\n"
    assert render(page, "2.14.1") == ""


def test_keeping_lines_blanks_what_is_left_out():
    from handbook.versioned_prose import render_keeping_lines

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
