import json
import os
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from handbook.environment import Environment
from handbook.execution import cache
from handbook.execution.blocks import Block, Page
from handbook.execution.cache import (
    CacheError,
    ExecutionCache,
    cache_key,
    check_cache_root,
    engine_modules,
    engine_version,
    output_settings,
)
from handbook.execution.results import BlockRun

# Synthetic data: an Environment made up for the cache key

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


def test_the_engine_is_what_its_roots_import_and_its_version_their_text(monkeypatch, tmp_path):
    """Every module a root imports from the package, at any depth and inside functions too (not a
    name a module defines, nor a package's `__init__`, nor another package), and an edit to any of
    them is another engine version."""
    files = {
        "eng/__init__.py": "",
        "eng/root.py": "import json\nimport eng.top\nfrom eng import sibling\n",
        "eng/top.py": "from eng.deep import NAME\n",
        "eng/sibling.py": "def f():\n    import eng.late\n",
        "eng/deep.py": "NAME = 1\n",
        "eng/late.py": "X = 1\n",
        "eng/unused.py": "",
    }
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(exist_ok=True)
        (tmp_path / name).write_text(text)
    monkeypatch.syspath_prepend(str(tmp_path))
    modules = engine_modules(("eng.root",), package="eng")
    assert modules == ("eng.deep", "eng.late", "eng.root", "eng.sibling", "eng.top")
    before = engine_version(modules)
    (tmp_path / "eng/late.py").write_text("X = 2\n")
    assert engine_version(modules) != before


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


PAGE_SIDE = ("handbook.execution.zygote", "handbook.execution.page_process", "handbook.execution.runner")


def test_every_module_the_page_side_imports_is_part_of_the_engine():
    """What zygote, page_process and runner import from the package, as Python finds it (not a hand
    list): editing any of them re-runs every page."""
    probe = (
        "import sys\n"
        + "".join(f"import {module}\n" for module in PAGE_SIDE)
        + "print('\\n'.join(m for m, v in sys.modules.items() if m.startswith('handbook')"
        " and not getattr(v, '__path__', None)))"
    )
    run = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    imported = set(run.stdout.split())
    assert imported >= set(PAGE_SIDE)
    assert imported - set(cache.engine_modules()) == set()


def test_the_modules_a_page_imports_only_when_it_runs_are_part_of_the_engine():
    """Imports inside functions (the zygote loads torch through `preload` once it starts) count too."""
    assert {"handbook.execution.preload", "handbook.execution.page_state"} <= set(cache.engine_modules())


def test_every_setting_the_pipeline_gives_pages_is_in_the_key_or_names_a_place(monkeypatch, tmp_path):
    """A setting `prepare_page_processes` gives every page either changes outputs (it is in the key)
    or only says where something is kept; none is left unclassified."""
    from handbook.execution.pipeline import prepare_page_processes

    before = {"PATH": os.environ["PATH"], "HOME": os.environ.get("HOME", str(tmp_path))}
    monkeypatch.setattr(os, "environ", dict(before))  # what prepare_page_processes sets, undone
    monkeypatch.setenv("HANDBOOK_CACHE_DIR", str(tmp_path / "caches"))
    prepare_page_processes(tmp_path)
    given = {name for name, value in os.environ.items() if before.get(name) != value} - {"PATH", "HANDBOOK_CACHE_DIR"}
    keyed = {name for name, _ in output_settings()}
    assert given - keyed - set(cache.CACHE_DIR_VARIABLES) == set()
    assert keyed & set(cache.CACHE_DIR_VARIABLES) == set()
