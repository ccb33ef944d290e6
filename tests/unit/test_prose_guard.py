"""The prose guard: a number typed in prose that another release prints and this one does not."""

from __future__ import annotations

from pathlib import Path

from handbook.environment import RECORDED_PYTHON
from handbook.execution.recordings import Recordings
from handbook.prose.guard import contradictions, numbers
from handbook.releases import recorded_releases

# Synthetic data: numbers in made-up text, and 7708, the ATen headers the 2.13 edition's own
# recording counts (a fact of that release, wherever the pin is)

REPO = Path(__file__).resolve().parents[2]


def test_numbers_are_tokens_without_thousands_separators():
    assert numbers("7708 headers, 2.13.0+cpu, 4,000,768 bytes, line 204. cu130 x2") == {
        "7708",
        "2.13.0",
        "4000768",
        "204",
    }


def test_numbers_are_read_between_chinese_characters_and_in_full_width_digits():
    # `\w` counts ideographs as word characters: a number written between them is still a number.
    assert numbers("共3000个元素，占 12 字节；版本2.13.0中为４０００，x2 不算") == {"3000", "12", "2.13.0", "4000"}


def test_a_typed_number_in_chinese_prose_fails_naming_the_translated_page_and_line():
    releases = recorded_releases(REPO)
    markdown = (REPO / "docs-zh/setup.md").read_text()
    assert contradictions(REPO, "setup.md", markdown, releases, "docs-zh") == []
    for typed in ("该 wheel 附带7708个 ATen 头文件。", "该 wheel 附带７７０８个 ATen 头文件。"):
        injected = markdown.rstrip("\n") + f"\n\n{typed}\n"
        line = injected.splitlines().index(typed) + 1
        problems = contradictions(REPO, "setup.md", injected, releases, "docs-zh")
        assert problems and all(p.startswith(f"docs-zh/setup.md:{line}: the prose says 7708") for p in problems)


def test_the_handbook_passes_and_an_injected_number_fails_naming_page_and_line():
    releases = recorded_releases(REPO)
    markdown = (REPO / "docs/setup.md").read_text()
    assert contradictions(REPO, "setup.md", markdown, releases) == []
    # What the 2.13 edition printed, typed into prose shared by every edition.
    injected = markdown.replace(
        "## A map of the source tree\n", "## A map of the source tree\n\nThe wheel ships 7708 ATen headers.\n", 1
    )
    line = injected.splitlines().index("The wheel ships 7708 ATen headers.") + 1
    problems = contradictions(REPO, "setup.md", injected, releases)
    assert problems and all(
        p.startswith(
            f"docs/setup.md:{line}: the prose says 7708, which this page prints with torch 2.13.0 but not with torch "
        )
        for p in problems
    )
    editions = {
        release + ("" if python == RECORDED_PYTHON else f" on Python {python}")
        for release in releases
        if release != "2.13.0"
        for python in [RECORDED_PYTHON, *Recordings(REPO, release).pythons()]
    }
    assert {p.rsplit("but not with torch ", 1)[1].split(";")[0] for p in problems} == editions


def test_a_number_only_another_python_prints_fails_for_the_recording_python(tmp_path):
    """Python 3.13's collector threshold, typed into prose that every Python's edition shows."""
    (tmp_path / "recordings/torch-2.15.0/memory").mkdir(parents=True)
    (tmp_path / "recordings/torch-2.15.0/memory/gc.txt").write_text("thresholds: (700, 10, 10)\n")
    (tmp_path / "recordings/torch-2.15.0/python-3.13/memory").mkdir(parents=True)
    (tmp_path / "recordings/torch-2.15.0/python-3.13/memory/gc.txt").write_text("thresholds: (2000, 10, 10)\n")
    markdown = "# Memory\n\nThe threshold is 2000.\n"
    assert contradictions(tmp_path, "memory.md", markdown, ["2.15.0"]) == [
        "docs/memory.md:3: the prose says 2000, which this page prints with torch 2.15.0 on Python 3.13 "
        "but not with torch 2.15.0; quote it from the output (<!-- out BLOCK /PATTERN/ -->) or version the sentence"
    ]
    versioned = "# Memory\n\n<!-- if python >= 3.13 -->\nThe threshold is 2000.\n<!-- end if -->\n"
    assert contradictions(tmp_path, "memory.md", versioned, ["2.15.0"]) == []


def test_versioned_prose_and_quotes_are_not_flagged():
    releases = recorded_releases(REPO)
    markdown = (
        "<!-- if torch == 2.13 -->\n7708 headers\n<!-- end if -->\n<!-- out tree-wheel_files /ATen "
        "headers\\s+(\\d+)/ --> headers\n"
    )
    assert contradictions(REPO, "setup.md", markdown, releases) == []
