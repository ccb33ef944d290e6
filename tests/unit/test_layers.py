"""The package's layers: the two halves import only from themselves and from the shared base."""

from __future__ import annotations

import ast
import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
BASE = {
    "handbook",
    "handbook.environment",
    "handbook.errors",
    "handbook.git",
    "handbook.languages",
    "handbook.log_text",
    "handbook.markdown_structure",
    "handbook.messages",
    "handbook.releases",
    "handbook.switches",
    "handbook.tree_files",
    "handbook.versioned_prose",
}
HALVES = ("handbook.execution", "handbook.sources")


def module_name(path: Path) -> str:
    parts = path.relative_to(REPO).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imported(path: Path) -> set[str]:
    names = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("handbook"):
            names |= {f"{node.module}.{alias.name}" for alias in node.names}
        elif isinstance(node, ast.Import):
            names |= {alias.name for alias in node.names if alias.name.startswith("handbook")}
    return names


def layer(name: str) -> str:
    if name in BASE:
        return "base"
    return next((half for half in HALVES if name == half or name.startswith(half + ".")), "site")


def test_halves_and_base_import_only_downwards():
    crossings = []
    for path in sorted((REPO / "handbook").rglob("*.py")):
        source = layer(module_name(path))
        if source == "site":
            continue
        for target in imported(path):
            # `from handbook.execution import runner` names a module; `from handbook.errors import x` a name in one
            target_layer = layer(target) if layer(target) != "site" else layer(target.rsplit(".", 1)[0])
            if target_layer not in {"base", source}:
                crossings.append(f"{module_name(path)} imports {target} ({target_layer})")
    assert crossings == []


def test_every_module_is_in_a_layer_the_docstring_names():
    names = {module_name(path) for path in (REPO / "handbook").rglob("*.py")}
    assert {layer(name) for name in names} == {"base", "handbook.execution", "handbook.sources", "site"}
    # The package's docstring names the base modules, in its paragraph "Below both halves".
    docstring = ast.get_docstring(ast.parse((REPO / "handbook" / "__init__.py").read_text(encoding="utf-8")))
    below = docstring[docstring.index("Below both halves:") :].split("\n\n")[0]
    named = {f"handbook.{name}" for name in re.findall(r"`(\w+)`", below)}
    assert named == BASE - {"handbook"}
    assert named <= names  # each one a module that exists


def _docstring(path: Path) -> str:
    return ast.get_docstring(ast.parse(path.read_text(encoding="utf-8"))) or ""


def test_the_package_map_names_every_module_of_the_site_layer_and_the_adapter():
    """The package's docstring is its map: each top-level module of the site layer is named in it,
    the adapter's bullet names the adapter, and what it names exists."""
    docstring = _docstring(REPO / "handbook" / "__init__.py")
    top = {module_name(path) for path in (REPO / "handbook").glob("*.py")} | {
        module_name(path.parent) for path in (REPO / "handbook").glob("*/__init__.py")
    }
    named = {f"handbook.{name}" for name in re.findall(r"`(?:handbook\.)?(\w+)`", docstring)}
    assert {name for name in top if layer(name) == "site"} - named == set()
    adapter = docstring[docstring.index("- The MkDocs adapter:") :].split("\n- ")[0].split("\n\n")[0]
    assert {f"handbook.{name}" for name in re.findall(r"`([a-z_]+)`", adapter) if name not in GENERATOR} == ADAPTER


def test_a_module_a_package_docstring_places_in_a_package_is_there():
    """`execution.failures`: where the failure messages live, said the same way wherever it is said."""
    placed = []
    for init in sorted((REPO / "handbook").rglob("__init__.py")):
        for dotted in re.findall(r"`(?:handbook\.)?((?:execution|sources|prose|reports)\.\w+)`", _docstring(init)):
            if not (REPO / "handbook" / dotted.replace(".", "/")).with_suffix(".py").is_file():
                placed.append(f"{init.relative_to(REPO)}: {dotted}")
    assert placed == []
    docstring = _docstring(REPO / "handbook" / "__init__.py")
    assert "`execution.failures`" in docstring and "`execution.failures`" in _docstring(
        REPO / "handbook" / "reports" / "__init__.py"
    )


# The MkDocs adapter: the only modules that may know the site generator (ARCHITECTURE.md, "Layers").
ADAPTER = {
    "handbook.plugin",
    "handbook.rendering",
    "handbook.rebuilds",
    "handbook.page_meta",
    "handbook.page_weight",
    "handbook.mkdocs_config",
    "handbook.lab_pages",
}
# The command line reads a site's configuration with MkDocs' loader, imported inside the commands that
# need it (so that `python -m handbook` loads no site generator: the last test of this file).
DRIVERS = {"handbook.__main__"}
GENERATOR = ("mkdocs", "markdown_exec", "material", "mkdocs_jupyter")
# pymdownx defines the pages' syntax, as every generator that runs Python-Markdown reads it (MkDocs,
# ProperDocs, Zensical): the scan reads fences and includes with it, so that a block's code is exactly
# what the page shows. That one module; everything else of pymdownx is the adapter's.
PAGE_SYNTAX = {"pymdownx": {"handbook.execution.blocks"}}


def third_party(path: Path) -> set[str]:
    """The top-level names of the packages a module imports, at any depth of its code."""
    names = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module.split(".")[0])
        elif isinstance(node, ast.Import):
            names |= {alias.name.split(".")[0] for alias in node.names}
    return names


def test_only_the_adapter_imports_the_site_generator():
    found = []
    for path in sorted((REPO / "handbook").rglob("*.py")):
        name = module_name(path)
        if name in ADAPTER:
            continue
        for package in sorted(third_party(path)):
            if package in GENERATOR or (package in PAGE_SYNTAX and name not in PAGE_SYNTAX[package]):
                found.append(f"{name} imports {package}")
    assert found == []


def test_nothing_outside_the_adapter_imports_it():
    """But a command of the command line, inside its own function."""
    found = [
        f"{module_name(path)} imports {target}"
        for path in sorted((REPO / "handbook").rglob("*.py"))
        if module_name(path) not in ADAPTER
        for target in (top_level_imports(path) if module_name(path) in DRIVERS else imported(path))
        if target in ADAPTER or target.rsplit(".", 1)[0] in ADAPTER
    ]
    assert found == []


def top_level_imports(path: Path) -> set[str]:
    """The handbook modules a module imports when it is loaded (not inside its functions)."""
    names = set()
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("handbook"):
            names |= {f"{node.module}.{alias.name}" for alias in node.names}
    return names


def test_the_execute_step_loads_no_site_generator():
    """`python -m handbook execute` and everything it imports, as Python loads it (not as the source reads)."""
    import subprocess
    import sys

    command = [sys.executable, "-X", "importtime", "-m", "handbook", "execute", "--help"]
    done = subprocess.run(command, cwd=REPO, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    loaded = {line.rsplit("|", 1)[-1].strip() for line in done.stderr.splitlines() if line.startswith("import time:")}
    assert sorted(name for name in loaded if name.split(".")[0] in GENERATOR) == []
    assert "handbook.prebuild" in loaded  # the step itself was loaded
