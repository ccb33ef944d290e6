"""Finding a symbol's lines in a source file: Python by its syntax tree, YAML by entry,
C++ headers by declarations and brace matching.

Each finder returns every candidate as a `Span`; the caller decides what to do
when there is not exactly one.
"""

from __future__ import annotations

import functools
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

PY_DEFINITION = re.compile(r"^(?P<indent>[ \t]*)(?:async[ \t]+)?(?P<kind>def|class)[ \t]+(?P<name>\w+)")
PY_ASSIGNMENT = re.compile(r"^(?P<name>[A-Za-z_]\w*)[ \t]*(?::[^=]*)?=(?!=)")
TRIPLE_QUOTES = re.compile(r'"""|\'\'\'')


def find_python(lines: list[str], symbol: str) -> list[Span]:
    return _python_definitions(tuple(lines)).get(symbol, [])


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip())


@functools.lru_cache(maxsize=64)
def _python_definitions(lines: tuple[str, ...]) -> dict[str, list[Span]]:
    """Every def, class and module-level assignment by qualified name, in one pass over the lines.

    A line scan, not a parse: parsing every linked module costs about a second per
    build, and the scan agrees with `ast` on every symbol the pages link (tested)."""
    code = _python_code_lines(lines)
    found: dict[str, list[Span]] = {}
    scopes: list[tuple[int, str]] = []  # (indent, qualified name) of enclosing classes and defs
    for index in code:
        line = lines[index]
        indent = _indent(line)
        if line.lstrip().startswith((")", "]", "}")):
            continue  # the closing bracket of a multi-line signature or call
        while scopes and scopes[-1][0] >= indent:
            scopes.pop()
        definition = PY_DEFINITION.match(line)
        if definition:
            name = (scopes[-1][1] + "." if scopes else "") + definition["name"]
            first = index
            decorators = []
            while first > 0 and lines[first - 1].strip().startswith("@") and _indent(lines[first - 1]) == indent:
                first -= 1
                decorators.append(lines[first])
            last = _python_block_end(lines, code, index, indent)
            if not any("overload" in d.split("(")[0] for d in decorators):
                found.setdefault(name, []).append(Span(first + 1, last + 1, definition["kind"] if definition["kind"] == "def" else "class"))
            scopes.append((indent, name))
            continue
        assignment = PY_ASSIGNMENT.match(line) if indent == 0 else None
        if assignment:
            last = _python_block_end(lines, code, index, 0)
            found.setdefault(assignment["name"], []).append(Span(index + 1, last + 1, "assignment"))
    return found


def _python_code_lines(lines: tuple[str, ...]) -> list[int]:
    """Indices of lines that start code: not blank, not comments, not inside triple-quoted strings."""
    result, in_string = [], False
    for index, line in enumerate(lines):
        stripped = line.strip()
        starts_in_string = in_string
        if len(TRIPLE_QUOTES.findall(line)) % 2 == 1:
            in_string = not in_string
        if starts_in_string or not stripped or stripped.startswith("#"):
            continue
        result.append(index)
    return result


def _python_block_end(lines: tuple[str, ...], code: list[int], start: int, indent: int) -> int:
    """The last line of the statement at `start`: before the next code line indented no deeper.
    Closing brackets of a multi-line signature sit at the statement's own indent."""
    position = code.index(start)
    last = start
    for index in code[position + 1:]:
        line = lines[index]
        if _indent(line) <= indent and not line.lstrip().startswith((")", "]", "}")):
            break
        last = index
    return last


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


TYPE_DEFINITION = re.compile(r"^\s*(?:template\s*<.*>\s*)?" + TYPE_KEYWORD + r"\s+" + ATTRIBUTES + r"(?P<name>\w+)\b\s*(?:final\b)?\s*(?::(?!:)|\{|<|$)")


def _types(lines: list[str], name: str) -> list[Span]:
    return _type_index(tuple(lines)).get(name, [])


@functools.lru_cache(maxsize=64)
def _type_index(lines: tuple[str, ...]) -> dict[str, list[Span]]:
    """Every class, struct, union and enum defined (with a body) in a header, by name, from one pass."""
    found: dict[str, list[Span]] = {}
    listed = list(lines)
    for index, line in enumerate(listed):
        match = TYPE_DEFINITION.match(_code_only(line))
        if match:
            last, has_body = _definition_end(listed, index)
            if has_body:
                found.setdefault(match["name"], []).append(Span(index + 1, last + 1, "type"))
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
