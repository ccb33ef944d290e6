"""The package's layers: the two halves import only from themselves and from the shared base."""

from __future__ import annotations

import ast
import re
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
BASE = {
    "handbook",
    "handbook.environment",
    "handbook.errors",
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
