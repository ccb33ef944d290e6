import json
import shutil
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from handbook.environment import Environment
from handbook.execution import page_history
from handbook.execution.blocks import Block, Page
from handbook.execution.cache import CacheError, ExecutionCache, cache_key, check_cache_root
from handbook.execution.results import BlockRun

ENV = Environment("2.13.0+cpu", "abc", "3.11.7", "cpu")
BLOCK = Block("p.md", 1, "b", "print(1)", "snippets/p.py", 3, 2)
PAGE = Page("p.md", (BLOCK,))


def test_hit_after_store(tmp_path: Path):
    cache = ExecutionCache(tmp_path)
    key = cache_key(PAGE, ENV)
    assert cache.load(key, 1) is None
    cache.store(key, [BlockRun("ok", "1", "", 0.1)])
    assert cache.load(key, 1) == [BlockRun("ok", "1", "", 0.1)]


@pytest.mark.parametrize(
    "changed",
    [
        Page("p.md", (replace(BLOCK, code="print(2)"),)),
        Page("p.md", (replace(BLOCK, origin_line=4),)),
        Page("p.md", (replace(BLOCK, options={"timeout": "5"}),)),
        Page("p.md", (BLOCK, replace(BLOCK, index=2, id="c"))),
    ],
)
def test_any_change_to_the_blocks_misses(changed):
    assert cache_key(changed, ENV) != cache_key(PAGE, ENV)


@pytest.mark.parametrize("part", ["torch", "git_version", "python", "device"])
def test_any_change_to_the_environment_misses(part):
    assert cache_key(PAGE, replace(ENV, **{part: "other"})) != cache_key(PAGE, ENV)


@pytest.mark.parametrize(
    "name, value",
    [("TORCH_LOGS", "recompiles"), ("PYTHONHASHSEED", "1"), ("KINETO_LOG_LEVEL", "0"), ("OMP_NUM_THREADS", "2")],
)
def test_settings_that_change_outputs_are_in_the_key(monkeypatch, name, value):
    """Torch's own settings, and those the pipeline sets for every page (the hash seed, the
    profiler's log level): another value, another output."""
    monkeypatch.setenv(name, "different-from-" + value)
    before = cache_key(PAGE, ENV)
    monkeypatch.setenv(name, value)
    assert cache_key(PAGE, ENV) != before


def test_where_the_caches_live_is_not_in_the_key(monkeypatch, tmp_path):
    before = cache_key(PAGE, ENV)
    monkeypatch.setenv("TORCHINDUCTOR_CACHE_DIR", str(tmp_path))
    assert cache_key(PAGE, ENV) == before


def test_engine_source_is_in_the_key(monkeypatch, tmp_path):
    """The engine's version is its modules' text: an edited module misses the cache."""
    module = tmp_path / "engine_part.py"
    module.write_text("X = 1\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr("handbook.execution.cache.ENGINE_MODULES", ("engine_part",))
    before = cache_key(PAGE, ENV)
    module.write_text("X = 2\n")
    assert cache_key(PAGE, ENV) != before


def test_failed_pages_are_not_stored(tmp_path: Path):
    cache = ExecutionCache(tmp_path)
    cache.store("k" * 64, [BlockRun("raised", "", "boom", 0.1)])
    assert cache.load("k" * 64, 1) is None


def test_corrupt_entry_is_ignored(tmp_path: Path):
    cache = ExecutionCache(tmp_path)
    key = cache_key(PAGE, ENV)
    cache.store(key, [BlockRun("ok", "1", "", 0.1)])
    next(tmp_path.rglob("*.json")).write_text("{not json")
    assert cache.load(key, 1) is None


def test_disabled_cache_neither_loads_nor_stores(tmp_path: Path):
    cache = ExecutionCache(tmp_path, enabled=False)
    cache.store("a" * 64, [BlockRun("ok", "1", "", 0.1)])
    assert not any(tmp_path.iterdir())


CONCURRENT_PAGE = """
# Page {n}

## Blocks

See [TensorImpl](pytorch:c10/core/TensorImpl.h#TensorImpl).

```python exec="on"
import torch
print(torch.arange({n}).sum())
```
"""


def test_two_builds_in_one_tree_at_once_both_succeed_and_share_the_caches(project):
    for n in range(1, 5):
        project.write(f"docs/page{n}.md", CONCURRENT_PAGE.format(n=n))
    assert project.goldens(HANDBOOK_CACHE="0").returncode == 0
    builds = [
        subprocess.Popen(
            [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", site],
            cwd=project.root,
            env=project.environment(),
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        for site in ("site-a", "site-b")
    ]
    outputs = [build.communicate(timeout=600)[0] for build in builds]
    assert [build.returncode for build in builds] == [0, 0], "\n".join(outputs)
    for site in ("site-a", "site-b"):
        assert "tensor(6)" in (project.root / site / "page4/index.html").read_text()
    history = json.loads((project.root / ".cache/page-history.json").read_text())
    peaks = history[page_history.PEAKS_KEY]
    assert sorted(history["seconds"]) == sorted(peaks) == [f"page{n}.md" for n in range(1, 5)]
    assert all(peak > 2**20 for peak in peaks.values())  # a page's Python holds more than a MiB
    entries = list((project.root / ".cache/exec").rglob("*"))
    assert len([e for e in entries if e.suffix == ".json"]) == 4 and not [e for e in entries if e.suffix == ".tmp"]
    shutil.rmtree(project.root / ".cache/runs")  # the execute step's record: with it, a build runs nothing
    again = project.build(HANDBOOK_EXECUTE="1")
    assert "executed 0 page(s)" in again.stderr  # every page from the cache the two builds wrote


@pytest.mark.parametrize(
    "corrupt",
    [
        {"output": None},
        {"error": 7},
        {"seconds": "fast"},
        {"machine": []},
        {"leftovers": "sh"},
        {"unknown": 1},
    ],
)
def test_an_entry_holding_values_of_the_wrong_kind_is_ignored(tmp_path: Path, corrupt):
    cache = ExecutionCache(tmp_path)
    key = cache_key(PAGE, ENV)
    cache.store(key, [BlockRun("ok", "1", "", 0.1)])
    path = next(tmp_path.rglob("*.json"))
    entry = json.loads(path.read_text())
    entry["runs"][0].update(corrupt)
    path.write_text(json.dumps(entry))
    assert cache.load(key, 1) is None


@pytest.mark.parametrize("file", [".", "parent"])
def test_a_cache_root_that_is_a_file_is_named(tmp_path: Path, file):
    (tmp_path / "cache").write_text("a file\n")
    root = tmp_path / "cache" if file == "." else tmp_path / "cache" / "handbook"
    with pytest.raises(CacheError, match=f"{tmp_path / 'cache'}: the cache directory is not a directory"):
        check_cache_root(root)
    check_cache_root(tmp_path / "new" / "handbook")  # not there yet: made when first written
