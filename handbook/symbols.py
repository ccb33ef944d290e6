"""Finding a symbol's lines in a source file: Python by its syntax tree, YAML by entry,
C++ headers by declarations and brace matching.

Each finder returns every candidate as a `Span`; the caller decides what to do
when there is not exactly one.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass


@dataclass(frozen=True)
class Span:
    first: int  # 1-based, in the file as given
    last: int
    kind: str  # what was found: class, def, struct, macro, entry, declaration ...

    def describe(self, lines: list[str]) -> str:
        return f"line {self.first}: {lines[self.first - 1].strip()[:100]}"


def find(path: str, lines: list[str], symbol: str) -> list[Span]:
    if path.endswith((".py", ".pyi")):
        return find_python(lines, symbol)
    if path.endswith((".yaml", ".yml")):
        return find_yaml(lines, symbol)
    return find_cpp(lines, symbol)


# --- Python -----------------------------------------------------------------

def find_python(lines: list[str], symbol: str) -> list[Span]:
    tree = ast.parse("\n".join(lines))
    found: list[Span] = []

    def visit(body: list[ast.stmt], prefix: str) -> None:
        for node in body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                name = prefix + node.name
                first = min([node.lineno] + [d.lineno for d in node.decorator_list])
                overload = any(isinstance(d, ast.Name) and d.id.endswith("overload") or isinstance(d, ast.Attribute) and d.attr == "overload" for d in node.decorator_list)
                if name == symbol and not overload:
                    found.append(Span(first, node.end_lineno, "class" if isinstance(node, ast.ClassDef) else "def"))
                if isinstance(node, ast.ClassDef):
                    visit(node.body, name + ".")
            elif isinstance(node, (ast.Assign, ast.AnnAssign)):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                if any(isinstance(t, ast.Name) and prefix + t.id == symbol for t in targets):
                    found.append(Span(node.lineno, node.end_lineno, "assignment"))
            elif isinstance(node, (ast.If, ast.Try)):
                # Definitions guarded by `if TYPE_CHECKING:` or `try:` are still definitions.
                visit(node.body, prefix)
                visit(getattr(node, "orelse", []), prefix)

    visit(tree.body, "")
    return found


# --- YAML (native_functions.yaml, derivatives.yaml) ---------------------------

def find_yaml(lines: list[str], symbol: str) -> list[Span]:
    entry = re.compile(r"^- (?:func|name): " + re.escape(symbol) + r"\(")
    found = []
    for index, line in enumerate(lines):
        if entry.match(line):
            last = index + 1
            while last < len(lines) and not lines[last].startswith("- "):
                last += 1
            while last > index + 1 and not lines[last - 1].strip():
                last -= 1
            found.append(Span(index + 1, last, "entry"))
    return found


# --- C++ headers -------------------------------------------------------------

TYPE_KEYWORD = r"(?:class|struct|union|enum\s+class|enum\s+struct|enum)"
ATTRIBUTES = r"(?:(?:[A-Z][A-Z0-9_]*(?:\([^)]*\))?|alignas\([^)]*\)|\[\[[^\]]*\]\])\s+)*"


def _code_only(line: str) -> str:
    return line.split("//", 1)[0]


def _matching_brace(lines: list[str], start: int, column: int = 0) -> int | None:
    """Index of the line closing the first `{` at or after (start, column); skips comments and strings."""
    depth = 0
    opened = False
    in_block_comment = False
    for index in range(start, len(lines)):
        text = lines[index][column:] if index == start else lines[index]
        position = 0
        while position < len(text):
            pair = text[position:position + 2]
            char = text[position]
            if in_block_comment:
                if pair == "*/":
                    in_block_comment = False
                    position += 1
            elif pair == "/*":
                in_block_comment = True
                position += 1
            elif pair == "//":
                break
            elif char in "\"'":
                end = position + 1
                while end < len(text) and text[end] != char:
                    end += 2 if text[end] == "\\" else 1
                position = end
            elif char == "{":
                depth += 1
                opened = True
            elif char == "}":
                depth -= 1
                if opened and depth == 0:
                    return index
            elif char == ";" and not opened:
                return None  # a declaration, not a definition
            position += 1
    return None


def _definition_end(lines: list[str], start: int, column: int = 0) -> tuple[int, bool]:
    """(last line index, has body) of the declaration or definition starting at `start`."""
    closing = _matching_brace(lines, start, column)
    if closing is not None:
        return closing, True
    for index in range(start, len(lines)):
        if ";" in _code_only(lines[index][column:] if index == start else lines[index]):
            return index, False
    return start, False


def _types(lines: list[str], name: str) -> list[Span]:
    pattern = re.compile(r"^\s*(?:template\s*<.*>\s*)?" + TYPE_KEYWORD + r"\s+" + ATTRIBUTES + re.escape(name) + r"\b\s*(?:final\b)?\s*(?::(?!:)|\{|<|$)")
    found = []
    for index, line in enumerate(lines):
        if pattern.match(_code_only(line)):
            last, has_body = _definition_end(lines, index)
            if has_body:
                found.append(Span(index + 1, last + 1, "type"))
    return found


def _macros(lines: list[str], name: str) -> list[Span]:
    pattern = re.compile(r"^\s*#\s*define\s+" + re.escape(name) + r"\b")
    found = []
    for index, line in enumerate(lines):
        if pattern.match(line):
            last = index
            while lines[last].rstrip().endswith("\\") and last + 1 < len(lines):
                last += 1
            found.append(Span(index + 1, last + 1, "macro"))
    return found


def _functions(lines: list[str], name: str, first: int = 0, last: int | None = None, qualified: str | None = None) -> list[Span]:
    """Declarations and definitions of function `name` (a call is not one: it has no type before it)."""
    callee = re.escape(qualified or name)
    pattern = re.compile(r"^(?P<before>[\w\s:<>,*&~\[\]()]*?)(?<![\w:.>-])" + callee + r"\s*\(")
    keyword_start = re.compile(r"^\s*(return|if|while|for|switch|case|else|delete|new|throw|using|typedef|co_return)\b")
    last = len(lines) if last is None else last
    found = []
    for index in range(first, last):
        text = _code_only(lines[index])
        match = pattern.match(text)
        if not match or keyword_start.match(text) or text.strip().startswith(("*", "#")):
            continue
        before = match["before"].strip()
        is_constructor = qualified is None and before in {"", "explicit", "constexpr", "inline"}
        if not before and not qualified and not is_constructor:
            continue
        if "=" in before or "(" in before and not before.endswith(")"):
            continue
        end, has_body = _definition_end(lines, index, match.end() - 1)
        found.append(Span(index + 1, end + 1, "definition" if has_body else "declaration"))
    return found


def _body_lines(lines: list[str], owner: Span) -> list[int]:
    """Indices of the lines directly inside a class body (not inside its functions)."""
    depth, inside = 0, []
    for index in range(owner.first - 1, owner.last):
        code = re.sub(r'"(?:\\.|[^"\\])*"', '""', _code_only(lines[index]))
        if depth == 1:
            inside.append(index)
        depth += code.count("{") - code.count("}")
    return inside


def _members(lines: list[str], owner: Span, name: str) -> list[Span]:
    body = _body_lines(lines, owner)
    spans = [s for index in body for s in _functions(lines, name, index, index + 1)]
    field = re.compile(r"^\s*[\w:<>,*&\s]+?[\s*&]" + re.escape(name) + r"\s*(?:;|=|\{|\[)")
    for index in body:
        code = _code_only(lines[index])
        if field.match(code) and "(" not in code and ")" not in code:
            spans.append(Span(index + 1, index + 1, "field"))
    nested = re.compile(r"^\s*" + TYPE_KEYWORD + r"\s+" + ATTRIBUTES + re.escape(name) + r"\b")
    for index in body:
        if nested.match(_code_only(lines[index])):
            end, has_body = _definition_end(lines, index)
            if has_body:
                spans.append(Span(index + 1, end + 1, "type"))
    return sorted(set(spans), key=lambda s: s.first)


def find_cpp(lines: list[str], symbol: str) -> list[Span]:
    parts = symbol.split("::")
    name = parts[-1]
    if len(parts) == 1:
        found = _types(lines, name) + _macros(lines, name)
        if not found:
            found = _functions(lines, name)
        return _prefer_definitions(found)
    owner_name = parts[-2]
    found = []
    for owner in _types(lines, owner_name):
        found += [Span(s.first, s.last, s.kind) if s.kind != "type" else s for s in _members(lines, owner, name)]
    found += _functions(lines, name, qualified=f"{owner_name}::{name}")
    return _prefer_definitions(sorted(set(found), key=lambda s: s.first))


def _prefer_definitions(spans: list[Span]) -> list[Span]:
    """A declaration plus its one definition is one symbol: keep the definition."""
    bodies = [s for s in spans if s.kind in {"definition", "type", "macro", "field"}]
    return bodies if len(bodies) == 1 else spans
