"""`handbook.execution.page_state`: the code every page (and every chapter notebook) starts with,
run here on its own in a fresh interpreter. That the runner runs it before a page's first
block is test_runner's (`test_torch_starts_fresh_with_one_thread_and_seed_zero`)."""

from __future__ import annotations

import json
import random
import subprocess
import sys
import textwrap

import numpy
import pytest

from handbook.execution import cache
from handbook.execution.page_state import PAGE_STATE

# Run after the page state: what it left, as JSON.
AFTER = """
import json, random, warnings
import numpy, torch

def warned(message, category, filename, lineno, module):
    # How many of three warnings from one place are shown, under the filters as they are.
    place = {}  # that place's registry, as its module's globals hold it
    with warnings.catch_warnings(record=True) as caught:
        for _ in range(3):
            warnings.warn_explicit(message, category, filename, lineno, module, registry=place)
    return len(caught)

print(json.dumps({
    "threads": torch.get_num_threads(),
    "torch": torch.initial_seed(),
    "random": random.random(),
    "numpy": numpy.random.rand(),
    # Python's own filters hide these outside __main__; a page shows each, once per place.
    "deprecation": warned("old", DeprecationWarning, "lib.py", 3, "lib"),
    "pending": warned("soon", PendingDeprecationWarning, "lib.py", 4, "lib"),
    "guards": warned("Guards may run slower on Python 3.13.0", RuntimeWarning, "g.py", 1, "torch"),
    "other": warned("Guards may run slower on Python 3.13.1", RuntimeWarning, "g.py", 2, "torch"),
}))
"""


@pytest.fixture(scope="module")
def state() -> dict:
    source = PAGE_STATE + "\n" + textwrap.dedent(AFTER)
    done = subprocess.run([sys.executable, "-I", "-c", source], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.splitlines()[-1])


def test_it_runs_on_its_own_with_one_thread_and_every_generator_seeded(state):
    assert (state["threads"], state["torch"]) == (1, 0)
    assert state["random"] == random.Random(0).random()
    assert state["numpy"] == numpy.random.RandomState(0).rand()


def test_every_warning_is_shown_once_per_place_whatever_pythons_filters_hide(state):
    assert (state["deprecation"], state["pending"], state["other"]) == (1, 1, 1)


def test_only_the_warning_about_a_patch_release_of_python_is_silenced(state):
    assert state["guards"] == 0


def test_a_change_to_it_runs_every_page_again():
    assert "handbook.execution.page_state" in cache.engine_modules()
