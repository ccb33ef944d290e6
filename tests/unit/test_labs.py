"""Labs (CONTRIBUTING.md, "Labs"): a lab read into exercises and run as a page, its checks held to their
solutions and mistakes, its notebooks, its page as mkdocs-jupyter renders it and the site shows it, and
its translation."""

from __future__ import annotations

import textwrap
from pathlib import Path

import nbformat
import pytest

from handbook import labs, translations
from handbook.environment import installed_torch
from handbook.execution.labs import CORRECT, LabError, lab_files, parse_lab, read_lab, verdict
from handbook.execution.recordings import Recordings
from handbook.lab_pages import fit, section_ids
from handbook.messages import Words

# Synthetic data: the torch version a lab's notebook is written for

REPO = Path(__file__).resolve().parents[2]
LABS = lab_files(REPO)


def lab_text(body: str) -> str:
    return textwrap.dedent(body).lstrip("\n")


SMALL = lab_text(
    """
    # %% [markdown]
    # # A small lab
    #
    # Its introduction.

    # %% tags=["setup"]
    base = [1, 2, 3]

    # %% [markdown]
    # ## Doubling {#doubling}
    #
    # Double each element ([source](pytorch:torch/_tensor.py#Tensor.storage)).

    # %% tags=["starter"] exercise="double"
    def double(xs):
        ...

    # %% tags=["solution"]
    def double(xs):
        return [2 * x for x in xs]

    # %% tags=["check"]
    print("correct" if double(base) == [2, 4, 6] else f"wrong: {double(base)}: each element times two")

    # %% tags=["mistake"]
    def double(xs):
        return xs + xs
    """
)


# --- reading a lab ------------------------------------------------------------------------------------


@pytest.mark.parametrize("lab", LABS)
def test_each_lab_has_at_least_four_exercises_each_complete(lab):
    read = read_lab(REPO, "labs", lab)
    assert read.title and len(read.exercises()) >= 4
    for exercise in read.exercises():
        roles = [cell.role for cell in read.cells if cell.exercise == exercise and cell.kind == "code"]
        assert roles[:3] == ["starter", "solution", "check"] and roles[3:] and set(roles[3:]) == {"mistake"}


def test_an_exercise_runs_its_mistakes_through_its_check_then_its_solution_and_check():
    page = parse_lab(SMALL, "labs", "small.py").page()
    assert [block.id for block in page.blocks] == [
        "setup-1",
        "double-mistake-1",
        "double-mistake-1-check",
        "double-solution",
        "double-check",
    ]
    check_after_mistake, check = page.blocks[2], page.blocks[4]
    assert check_after_mistake.code == check.code and check.origin == "labs/small.py:23"
    assert check_after_mistake.options["answer"] == "labs/small.py:26" and check.options["answer"] == "labs/small.py:19"
    assert page.file == "labs/small.py" and check.section == "Doubling {#doubling}"


@pytest.mark.parametrize(
    ("change", "said"),
    [
        (('tags=["setup"]', ""), "exactly one role"),
        (('tags=["setup"]', 'tags=["setup", "solution"]'), "exactly one role"),
        (("    ...\n", "    return []\n"), "something to complete, written `...`"),
        (('exercise="double"', ""), 'exercise="<name>"'),
        (('# %% tags=["mistake"]\ndef double(xs):\n    return xs + xs\n', ""), "one or more mistakes"),
        (('tags=["check"]', 'tags=["check"] colour="red"'), "unknown cell metadata colour"),
        (("# %% [markdown]\n# # A small lab", "# A small lab"), "'# %%' mark"),
        ((SMALL, ""), "'# %%' mark"),
    ],
)
def test_a_lab_that_is_not_a_set_of_exercises_fails_naming_its_line(change, said):
    old, new = change
    assert old in SMALL
    with pytest.raises(LabError, match="labs/small.py") as raised:
        parse_lab(SMALL.replace(old, new, 1), "labs", "small.py")
    assert said in str(raised.value)


def test_a_setup_cell_may_follow_an_exercise_and_its_text_but_not_sit_inside_it():
    after = SMALL + lab_text(
        """

        # %% [markdown]
        # ## Next {#next}

        # %% tags=["setup"]
        more = [4]
        """
    )
    page = parse_lab(after, "labs", "small.py").page()
    assert [block.id for block in page.blocks][-1] == "setup-2"
    inside = SMALL.replace('# %% tags=["check"]', '# %% tags=["setup"]\nmore = [4]\n\n# %% tags=["check"]')
    with pytest.raises(LabError, match="a setup cell inside exercise 'double'"):
        parse_lab(inside, "labs", "small.py")


def test_a_check_must_say_correct_to_its_solution_and_why_to_a_mistake():
    blocks = {block.id: block for block in parse_lab(SMALL, "labs", "small.py").page().blocks}
    check, after_mistake = blocks["double-check"], blocks["double-mistake-1-check"]
    assert verdict(check, f"{CORRECT}\n") is None and verdict(after_mistake, "wrong: [1, 2, 3, 1, 2, 3]") is None
    assert "does not print 'correct' for the solution at labs/small.py:19" in verdict(check, "wrong: no")
    assert "prints 'correct' for the deliberate mistake at labs/small.py:26" in verdict(after_mistake, CORRECT)
    assert "prints nothing for the mistake" in verdict(after_mistake, "")
    assert verdict(blocks["setup-1"], "") is None


@pytest.mark.parametrize("lab", LABS)
def test_every_check_of_each_lab_has_its_verdict_recorded(lab):
    """What the build checks on every run, on the recordings: `correct` for each solution, a reason for each
    mistake (a recording that broke either could only come from a build that failed)."""
    recordings = Recordings(REPO, installed_torch().release)
    for block in read_lab(REPO, "labs", lab).page().blocks:
        output = recordings.read(block)
        assert output is not None, block.label
        assert verdict(block, output) is None, block.label


# --- notebooks --------------------------------------------------------------------------------------------


def notebooks_of(text: str, lab_path: str = "small.py"):
    lab = parse_lab(text, "labs", lab_path)
    outputs = {"setup-1": "", "double-solution": "", "double-check": "correct", "double-mistake-1-check": "wrong"}
    text = lambda markdown: labs.text_cell(markdown, "en")  # noqa: E731
    return [labs.lab_notebook(lab, outputs, "2.13.0+cpu", text, download=d) for d in (False, True)]


def test_the_notebooks_leave_mistakes_out_and_hide_the_solution_where_a_reader_downloads_it():
    page, download = notebooks_of(SMALL)
    for notebook in (page, download):
        nbformat.validate(notebook)
        sources = [cell.source for cell in notebook.cells]
        assert not any("xs + xs" in source for source in sources)
        check = next(cell for cell in notebook.cells if cell.metadata.get("tags") == ["check"])
        assert check.outputs[0].text == "correct\n"
    solution = next(cell for cell in download.cells if cell.metadata.get("tags") == ["solution"])
    assert solution.metadata["jupyter"] == {"source_hidden": True} and solution.metadata["cellView"] == "form"
    assert download.cells[0].metadata["tags"] == ["install"] and "%pip install" in download.cells[0].source
    assert not any("install" in cell.metadata.get("tags", []) for cell in page.cells)


# --- the page ---------------------------------------------------------------------------------------------


def rendered_by_mkdocs_jupyter(text: str, directory: Path) -> str:
    from mkdocs_jupyter import convert

    page, _ = notebooks_of(text)
    path = directory / "small.ipynb"
    nbformat.write(page, path)
    return convert.nb2html(str(path), theme="light", allow_errors=False)


def test_the_page_keeps_the_cells_and_drops_scripts_styles_and_the_cdn(tmp_path):
    text = SMALL
    rendered = rendered_by_mkdocs_jupyter(text, tmp_path)
    assert "<script" in rendered and "<style" in rendered and "cdnjs" in rendered  # what it has to lose
    prose = labs.prose(text, parse_lab(text, "labs", "small.py"))
    fitted = fit(rendered, section_ids(prose), Words("en"), "../../notebooks/labs-small.ipynb", None)
    content = fitted.content
    for refused in ("<script", "<style", "style=", "cdnjs", "clipboard-copy", "jp-Cell", "http"):
        assert refused not in content, refused
    assert '<h1 id="a-small-lab">A small lab<a class="headerlink"' in content
    assert '<h2 id="doubling">Doubling<a class="headerlink" href="#doubling"' in content
    assert content.index("handbook-notebook-links") < content.index("Its introduction")
    assert content.count("<details") == 1
    assert content.index("handbook-lab-starter") < content.index("<details") < content.index("handbook-lab-check")
    folded = content.split("<details")[1].split("</details>")[0]
    assert "handbook-lab-solution" in folded and "Solution (try the exercise first)" in folded
    output = '<div class="handbook-output highlight" data-search-exclude=""><span class="filename">Output</span>'
    assert output in content
    assert [item.id for item in fitted.toc.items] == ["a-small-lab"]
    assert [child.id for child in fitted.toc.items[0].children] == ["doubling"]


def test_a_translated_labs_outdated_section_says_so_under_its_heading(tmp_path):
    rendered = rendered_by_mkdocs_jupyter(SMALL, tmp_path)
    prose = labs.prose(SMALL, parse_lab(SMALL, "labs", "small.py"))
    notices = {"doubling": ("2026-12-01", "https://example.invalid/labs/small/#doubling")}
    content = fit(rendered, section_ids(prose), Words("zh"), "n.ipynb", None, notices).content
    after_heading = content.split('<h2 id="doubling">')[1]
    assert after_heading.index('<div class="admonition warning">') < after_heading.index("<p>")
    assert '<a href="https://example.invalid/labs/small/#doubling">' in after_heading
    assert "2026-12-01" in after_heading and content.count("admonition warning") == 1


# --- translations ---------------------------------------------------------------------------------------


def test_a_translated_lab_has_its_originals_code_and_marks_that_outdate_when_the_original_changes():
    original = parse_lab(SMALL, "labs", "small.py")
    translated_text = SMALL.replace("# # A small lab", "# # 一个小练习").replace("# Its introduction.", "# 简介。")
    translated = parse_lab(translated_text, "labs-zh", "small.py")
    assert labs.code_differences(original, translated) == []
    original_prose = labs.prose(SMALL, original)
    marked = labs.marked(original_prose, translated_text, labs.prose(translated_text, translated))
    assert marked.count("# <!-- translates ") == 2  # the introduction and the one section
    marked_lab = parse_lab(marked, "labs-zh", "small.py")
    assert labs.code_differences(original, marked_lab) == []
    assert translations.outdated_sections("small.py", original_prose, labs.prose(marked, marked_lab)) == []
    edited = SMALL.replace("Double each element", "Double every element")
    outdated = translations.outdated_sections(
        "small.py", labs.prose(edited, parse_lab(edited, "labs", "small.py")), labs.prose(marked, marked_lab)
    )
    assert [section.section for section in outdated] == ["doubling"]
    changed_code = marked.replace("return [2 * x for x in xs]", "return [x * 2 for x in xs]")
    (problem,) = labs.code_differences(original, parse_lab(changed_code, "labs-zh", "small.py"))
    assert problem.startswith("labs-zh/small.py:20: code cell 3 is not labs/small.py:18's")


@pytest.mark.parametrize("lab", LABS)
def test_each_lab_has_a_translation_with_its_code_and_no_outdated_section(lab):
    original = read_lab(REPO, "labs", lab)
    translated = read_lab(REPO, "labs-zh", lab)
    assert labs.code_differences(original, translated) == []
    assert labs.outdated(REPO, "labs", "labs-zh", read_lab) == []
    assert translated.title != original.title
