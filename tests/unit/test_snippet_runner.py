"""Which snippet files the runner forks from its torch-importing server, and which get a fresh interpreter."""

from __future__ import annotations

from pathlib import Path

import pytest
from snippet_runner import REPO, needs_fresh_interpreter


@pytest.mark.parametrize(
    ("source", "why"),
    [
        ('"""Doc."""\nimport torch\nprint(torch.ones(1))\n', None),
        ("import json\nfrom torch import nn\nprint(nn)\n", None),
        ("import os\nos.environ['KINETO_LOG_LEVEL'] = '6'\nimport torch\n", "line 2 runs before torch is imported"),
        ("from . import helper\nimport torch\n", "line 1 is a relative import"),
        ("import json\nimport os\n", "it imports no torch at its top level"),
        ("def f():\n    import torch\n", "line 1 runs before torch is imported"),
    ],
)
def test_a_file_is_forked_only_if_torch_is_the_first_thing_it_imports(tmp_path: Path, source: str, why: str | None):
    file = tmp_path / "snippet.py"
    file.write_text(source)
    assert needs_fresh_interpreter(file) == why


def test_the_rule_follows_imports_of_the_repositorys_own_modules():
    # step.py sets KINETO_LOG_LEVEL before it imports torch; its importers inherit the reason.
    step = REPO / "snippets/profiling/step.py"
    assert needs_fresh_interpreter(step) == "line 7 runs before torch is imported"
    assert needs_fresh_interpreter(REPO / "snippets/profiling/mistakes.py") == (
        "line 3 imports snippets/profiling/step.py"
    )


def test_a_sibling_that_imports_torch_first_keeps_the_file_forked(tmp_path: Path):
    (tmp_path / "helper.py").write_text("import torch\nVALUE = torch.zeros(1)\n")
    file = tmp_path / "snippet.py"
    file.write_text("from helper import VALUE\nprint(VALUE)\n")
    assert needs_fresh_interpreter(file) is None
