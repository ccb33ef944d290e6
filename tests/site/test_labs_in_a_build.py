"""A lab built as a page: a drifted cell, a lax check and a wrong solution each fail the build, naming the place."""

from __future__ import annotations

import textwrap

from handbook.environment import installed_torch


def lab_text(body: str) -> str:
    return textwrap.dedent(body).lstrip("\n")


# --- the build ------------------------------------------------------------------------------------------

THREE = lab_text(
    """
    # %% [markdown]
    # # Three exercises
    #
    # What the build must refuse ([source](pytorch:torch/_tensor.py#Tensor.storage)).

    # %% [markdown]
    # ## One {#one}
    #
    # Its output is recorded ([source](pytorch:torch/_tensor.py#Tensor.storage)).

    # %% tags=["starter"] exercise="drifts"
    answer = ...

    # %% tags=["solution"]
    answer = 2

    # %% tags=["check"]
    print("correct" if answer == 2 else f"wrong: {answer}, not 2")

    # %% tags=["mistake"]
    answer = 3

    # %% [markdown]
    # ## Two {#two}
    #
    # Its check is lax ([source](pytorch:torch/_tensor.py#Tensor.storage)).

    # %% tags=["starter"] exercise="lax"
    other = ...

    # %% tags=["solution"]
    other = 4

    # %% tags=["check"]
    print("correct" if other in (4, 5) else f"wrong: {other}, not 4")

    # %% tags=["mistake"]
    other = 6

    # %% [markdown]
    # ## Three {#three}
    #
    # Its solution is wrong ([source](pytorch:torch/_tensor.py#Tensor.storage)).

    # %% tags=["starter"] exercise="strict"
    last = ...

    # %% tags=["solution"]
    last = 7

    # %% tags=["check"]
    print("correct" if last == 7 else f"wrong: {last}, not 7")

    # %% tags=["mistake"]
    last = 8
    """
)


def test_a_drifted_cell_a_lax_check_and_a_wrong_solution_each_fail_the_build_naming_the_place(project):
    project.write("docs/index.md", "# Home\n\nNo block.\n")
    lab = project.write("labs/three.py", THREE)
    recorded = project.goldens()
    assert recorded.returncode == 0, recorded.stderr
    assert "labs/three/drifts-check.txt" in "\n".join(project.recordings())
    # Now: one recording drifts, one check takes a mistake, and one solution is wrong.
    drifted = project.root / f"recordings/torch-{installed_torch().release}/labs/three/drifts-solution.txt"
    drifted.write_text("an output it never printed\n")
    lab.write_text(THREE.replace("other = 6", "other = 5").replace("last = 7\n\n", "last = 9\n\n"))
    built = project.build()
    assert built.returncode != 0
    errors = built.stderr
    assert "labs/three.py, block 3 (drifts-solution), labs/three.py:15: the output differs from its recording" in errors
    assert (
        "labs/three.py, block 6 (lax-mistake-1-check), labs/three.py:35: the lab's check does not reject a "
        "deliberately wrong answer" in errors
    )
    assert "the check at labs/three.py:35 prints 'correct' for the deliberate mistake at labs/three.py:38" in errors
    assert (
        "labs/three.py, block 12 (strict-check), labs/three.py:52: the lab's check does not print `correct` for its "
        "solution" in errors
    )
    assert "the check at labs/three.py:52 does not print 'correct' for the solution at labs/three.py:49" in errors
