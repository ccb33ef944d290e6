"""Finding a symbol's lines in a source file: Python by its syntax tree, YAML by entry,
C++ headers by declarations and brace matching over a copy of the file without comments
and literals.

Each finder returns every candidate as a `Span`; the caller decides what to do when
there is not exactly one. `find` remembers every answer in memory and on disk, under
the build's cache directory, per torch commit, keyed by the file's content and this
module's source: a build that links the same symbols again parses nothing.
"""

from __future__ import annotations

import ast
import contextlib
import functools
import hashlib
import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

from handbook.environment import installed_torch
from handbook.sources.tree import SourceError
from handbook.tree_files import write_atomically


@dataclass(frozen=True)
class Span:
    first: int  # 1-based, in the file as given
    last: int
    kind: str  # what was found: class, def, assignment, type, definition, declaration, field, macro, constant, entry

    def describe(self, lines: list[str]) -> str:
        return f"line {self.first}: {lines[self.first - 1].strip()[:100]}"


def find(path: str, lines: list[str], symbol: str, caches: Path) -> list[Span]:
    """Every candidate for `symbol` in `lines`, the installed text of repository file `path`.

    Answers are cached under `caches` (the build's cache root, `environment.cache_root`)."""
    return _cache_in(caches / "symbols" / _torch_commit()).find(path, lines, symbol)


@functools.cache
def _torch_commit() -> str:
    return installed_torch().git_version


@functools.cache
def _cache_in(directory: Path) -> SymbolCache:
    return SymbolCache(directory)


def finder_for(path: str, lines: list[str]) -> PythonSymbols | YamlEntries | CppHeader:
    """The finder for a file's language, told by its path."""
    return {"python": PythonSymbols, "yaml": YamlEntries, "cpp": CppHeader}[language_of(path)](lines)


def language_of(path: str) -> str:
    """`python`, `yaml` or `cpp`: which finder reads the file at `path`."""
    if path.endswith((".py", ".pyi")):
        return "python"
    if path.endswith((".yaml", ".yml")):
        return "yaml"
    return "cpp"


# --- The answers cache -------------------------------------------------------

# A change to any finder must not be answered from an old cache.
FINDERS_VERSION = hashlib.sha256(Path(__file__).read_bytes()).hexdigest()[:16]


class SymbolCache:
    """Answers of `find` per source file, in memory and in one JSON file per source file on disk.

    An entry is named after the file's content and the finders' version, so it can never
    answer for other text; one that cannot be read is ignored and rewritten."""

    def __init__(self, directory: Path):
        self.directory = directory
        self._files: dict[str, CachedFile] = {}  # one per linked file: the pages link a few hundred

    def find(self, path: str, lines: list[str], symbol: str) -> list[Span]:
        key = content_key(path, lines)
        if key not in self._files:
            self._files[key] = CachedFile(path, lines, self.directory / f"{key}.json")
        return self._files[key].find(symbol)


def content_key(path: str, lines: list[str]) -> str:
    """Names the answers for this text, read by this path's finder, with this module's finders."""
    digest = hashlib.sha256(f"{FINDERS_VERSION}\0{language_of(path)}\0".encode())
    digest.update("\n".join(lines).encode("utf-8", "surrogateescape"))
    return digest.hexdigest()[:32]


class CachedFile:
    """One source file's answers: read from its entry, found and written back when missing."""

    def __init__(self, path: str, lines: list[str], entry: Path):
        self.path, self.lines, self.entry = path, lines, entry
        self.answers = _read_answers(entry)

    @cached_property
    def finder(self) -> PythonSymbols | YamlEntries | CppHeader:
        return finder_for(self.path, self.lines)  # parsed only when an answer is missing

    def find(self, symbol: str) -> list[Span]:
        if symbol not in self.answers:
            self.answers[symbol] = self.finder.find(symbol)
            _write_answers(self.entry, self.path, self.answers)
        return list(self.answers[symbol])


def _read_answers(entry: Path) -> dict[str, list[Span]]:
    try:
        stored = json.loads(entry.read_text(encoding="utf-8"))["answers"]
        return {
            symbol: [Span(int(first), int(last), str(kind)) for first, last, kind in spans]
            for symbol, spans in stored.items()
        }
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return {}  # missing or corrupt: found again


def _write_answers(entry: Path, path: str, answers: dict[str, list[Span]]) -> None:
    """Readers, in this build or a concurrent one, see the old entry or the new one, never a part.
    A cache that cannot be written costs time, not the build."""
    stored = {symbol: [[s.first, s.last, s.kind] for s in spans] for symbol, spans in answers.items()}
    with contextlib.suppress(OSError):
        write_atomically(entry, json.dumps({"path": path, "answers": stored}))


# --- Python -----------------------------------------------------------------

# Typing's and TorchScript's overload stubs declare a signature; the definition is elsewhere.
OVERLOAD_DECORATORS = {"overload", "_overload", "_overload_method"}


class PythonSymbols:
    """Every class, def and module-level assignment of a Python file, by qualified dotted name
    (`Class.method`, `outer.inner`); a def's span starts at its first decorator."""

    def __init__(self, lines: list[str]):
        self.lines = lines

    def find(self, symbol: str) -> list[Span]:
        """Every definition of the dotted name `symbol`, in the order of the file."""
        return list(self.definitions.get(symbol, []))

    @cached_property
    def definitions(self) -> dict[str, list[Span]]:
        try:
            tree = ast.parse("\n".join(self.lines))
        except SyntaxError as error:
            raise SourceError(f"cannot parse the installed file as Python: line {error.lineno}: {error.msg}") from error
        found: dict[str, list[Span]] = {}
        _collect_python(tree.body, "", found, module_level=True)
        return found


def _collect_python(
    body: list[ast.stmt], prefix: str, found: dict[str, list[Span]], module_level: bool = False
) -> None:
    for node in body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            name = prefix + node.name
            if not any(_decorator_name(d) in OVERLOAD_DECORATORS for d in node.decorator_list):
                first = min([node.lineno] + [d.lineno for d in node.decorator_list])
                kind = "class" if isinstance(node, ast.ClassDef) else "def"
                found.setdefault(name, []).append(Span(first, node.end_lineno, kind))
            _collect_python(node.body, name + ".", found)
        elif module_level and isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target] if node.value else []
            for target in targets:
                if isinstance(target, ast.Name):
                    found.setdefault(target.id, []).append(Span(node.lineno, node.end_lineno, "assignment"))
        else:
            # `if`, `try`, `with`, `for`, `match` open no scope: what they define belongs to the enclosing one.
            for statements in _nested_statements(node):
                _collect_python(statements, prefix, found)


def _decorator_name(decorator: ast.expr) -> str:
    """The decorator's last name: `overload` for `@overload`, `@typing.overload` and `@overload(...)`."""
    if isinstance(decorator, ast.Call):
        decorator = decorator.func
    return getattr(decorator, "attr", getattr(decorator, "id", ""))


def _nested_statements(node: ast.stmt) -> Iterator[list[ast.stmt]]:
    """The statement lists inside a compound statement: bodies, branches, handlers, cases."""
    for _, value in ast.iter_fields(node):
        if isinstance(value, list):
            for item in value:
                if isinstance(item, (ast.excepthandler, ast.match_case)):
                    yield item.body
            if value and isinstance(value[0], ast.stmt):
                yield value


# --- YAML (native_functions.yaml, derivatives.yaml) ---------------------------


class YamlEntries:
    """Entries of native_functions.yaml (`- func: name.overload(`) and derivatives.yaml (`- name: `)."""

    def __init__(self, lines: list[str]):
        self.lines = lines

    def find(self, symbol: str) -> list[Span]:
        """Every entry of `symbol` (`add.Tensor`), to its last non-blank line."""
        lines = self.lines
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

# What can hide a brace, a quote or a comment marker. A quote after a digit is a digit
# separator (1'000'000), not a character literal; a raw string ends only at `)delimiter"`.
CPP_HIDING = re.compile(
    r'(?P<raw>(?<!\w)(?:u8|[uUL])?R"(?P<delimiter>[^()\\\s"]{0,16})\((?s:.*?)\)(?P=delimiter)")'
    r'|(?P<string>(?:(?<!\w)(?:u8|[uUL]))?"(?:\\.|[^"\\\n])*")'
    r"|(?P<char>(?<!\w)(?:u8|[uUL])?'(?:\\.|[^'\\\n])*')"
    r"|(?P<comment>//(?:\\\n|[^\n])*|/\*(?s:.*?)\*/)"
)
CONDITIONAL = re.compile(r"\s*#\s*(?P<directive>if|ifdef|ifndef|elif|elifdef|elifndef|else|endif)\b")
DIRECTIVE = re.compile(r"\s*#")
BRACE_OR_SEMICOLON = re.compile(r"[{};]")
NAMESPACE_HEAD = re.compile(r'(?:\bnamespace(?:\s+[\w:]+)?|\bextern\s+"[^"]*")\s*$')

TYPE_KEYWORD = r"(?:class|struct|union|enum\s+class|enum\s+struct|enum)"
ATTRIBUTES = r"(?:(?:[A-Z][A-Z0-9_]*(?:\([^)]*\))?|alignas\([^)]*\)|\[\[[^\]]*\]\])\s+)*"
TYPE_DEFINITION = re.compile(
    r"^\s*(?:template\s*<.*>\s*)?"
    + TYPE_KEYWORD
    + r"\s+"
    + ATTRIBUTES
    + r"(?P<name>\w+)\b\s*(?:final\b)?\s*(?::(?!:)|\{|<|$)"
)
STATEMENT_KEYWORD = re.compile(r"^\s*(return|if|while|for|switch|case|else|delete|new|throw|using|typedef|co_return)\b")


def _blank(match: re.Match) -> str:
    """The literal or comment with everything but its quotes and line breaks made spaces."""
    text = match[0]
    blanked = re.sub(r"[^\n]", " ", text)
    if match["comment"]:
        return blanked
    opening = min(i for i in (text.find('"'), text.find("'")) if i >= 0)
    return text[: opening + 1] + blanked[opening + 1 : -1] + text[-1]


@dataclass(frozen=True)
class CodeLine:
    index: int
    code: str  # from the start column on the first line
    open_braces: tuple[str, ...]  # what each brace open before this line follows (`namespace c10`, `struct X`)


class CppHeader:
    """Classes, structs, enums, functions, macros, namespace-scope constexpr constants and
    `Class::member`s of a C++ header, found in its code: comments and the insides of
    string and character literals are blanked first."""

    def __init__(self, lines: list[str]):
        self.lines = lines

    @cached_property
    def code(self) -> list[str]:
        """The lines with comments and literal contents blanked, columns and line count unchanged."""
        return CPP_HIDING.sub(_blank, "\n".join(self.lines)).split("\n")

    def find(self, symbol: str) -> list[Span]:
        """Types, macros and constants named `symbol`, else functions; `Owner::member` looks
        inside every type named `Owner` and at out-of-class definitions `Owner::member(`."""
        parts = symbol.split("::")
        name = parts[-1]
        if len(parts) == 1:
            found = self.types.get(name, []) + self._macros(name) + self._constants(name)
            if not found:
                found = self._functions(name)
            return _prefer_definitions(found)
        owner_name = parts[-2]
        found = []
        for owner in self.types.get(owner_name, []):
            found += self._members(owner, name)
        found += self._functions(name, qualified=f"{owner_name}::{name}")
        return _prefer_definitions(sorted(set(found), key=lambda s: s.first))

    def code_lines(self, start: int, column: int = 0) -> Iterator[CodeLine]:
        """The lines from `start` (at `column`) whose braces count: not preprocessor lines, and of
        each conditional only one branch's braces (see `OpenBraces`)."""
        braces = OpenBraces()
        in_directive = False
        for index in range(start, len(self.code)):
            text = self.code[index][column:] if index == start else self.code[index]
            if in_directive or DIRECTIVE.match(text):
                if not in_directive and (conditional := CONDITIONAL.match(text)):
                    braces.directive(conditional["directive"])
                in_directive = text.rstrip().endswith("\\")
                continue
            if not braces.skipping:
                yield CodeLine(index, text, tuple(braces.open))
                braces.code(text)

    def _matching_brace(self, start: int, column: int = 0) -> int | None:
        """Index of the line closing the first `{` at or after (start, column); None if a `;` comes first."""
        opened = False
        for line in self.code_lines(start, column):
            depth = len(line.open_braces)
            for mark in BRACE_OR_SEMICOLON.finditer(line.code):
                if mark[0] == "{":
                    depth += 1
                    opened = True
                elif mark[0] == "}":
                    depth -= 1
                    if opened and depth == 0:
                        return line.index
                elif not opened:
                    return None  # a declaration, not a definition
        return None

    def _definition_end(self, start: int, column: int = 0) -> tuple[int, bool]:
        """(last line index, has body) of the declaration or definition starting at `start`."""
        closing = self._matching_brace(start, column)
        if closing is not None:
            return closing, True
        for index in range(start, len(self.code)):
            if ";" in (self.code[index][column:] if index == start else self.code[index]):
                return index, False
        return start, False

    @cached_property
    def types(self) -> dict[str, list[Span]]:
        """Every class, struct, union and enum defined (with a body), by name."""
        found: dict[str, list[Span]] = {}
        for index, code in enumerate(self.code):
            match = TYPE_DEFINITION.match(code)
            if match:
                last, has_body = self._definition_end(index)
                if has_body:
                    found.setdefault(match["name"], []).append(Span(index + 1, last + 1, "type"))
        return found

    def _macros(self, name: str) -> list[Span]:
        pattern = re.compile(r"^\s*#\s*define\s+" + re.escape(name) + r"\b")
        found = []
        for index, code in enumerate(self.code):
            if pattern.match(code):
                last = index
                while self.lines[last].rstrip().endswith("\\") and last + 1 < len(self.lines):
                    last += 1
                found.append(Span(index + 1, last + 1, "macro"))
        return found

    @cached_property
    def namespace_scope(self) -> set[int]:
        """Indices of the lines that start inside no braces but those of namespaces and `extern "C"`."""
        return {
            line.index for line in self.code_lines(0) if all(NAMESPACE_HEAD.search(head) for head in line.open_braces)
        }

    def _constants(self, name: str) -> list[Span]:
        """`constexpr` variables at namespace scope (`constexpr size_t kSmallSize = 1048576;`)."""
        pattern = re.compile(
            r"^\s*(?:template\s*<.*>\s*)?(?:\w+\s+)*constexpr\s+[\w:<>,*&\s]+?(?<![\w:])"
            + re.escape(name)
            + r"\s*(?:=|\{|;|\[)"
        )
        declarations = [index for index, code in enumerate(self.code) if pattern.match(code)]
        found = []
        for index in declarations:  # the scopes of the file are worked out only when a declaration matches
            if index in self.namespace_scope:
                last, _ = self._definition_end(index)
                found.append(Span(index + 1, last + 1, "constant"))
        return found

    def _functions(
        self, name: str, first: int = 0, last: int | None = None, qualified: str | None = None
    ) -> list[Span]:
        """Declarations and definitions of function `name` (a call is not one: it has no type before it)."""
        callee = re.escape(qualified or name)
        pattern = re.compile(r"^(?P<before>[\w\s:<>,*&~\[\]()]*?)(?<![\w:.>-])" + callee + r"\s*\(")
        found = []
        for index in range(first, len(self.code) if last is None else last):
            text = self.code[index]
            match = pattern.match(text)
            if not match or STATEMENT_KEYWORD.match(text) or text.strip().startswith(("*", "#")):
                continue
            before = match["before"].strip()
            is_constructor = qualified is None and before in {"", "explicit", "constexpr", "inline"}
            if not before and not qualified and not is_constructor:
                continue
            if "=" in before or "(" in before and not before.endswith(")"):
                continue
            end, has_body = self._definition_end(index, match.end() - 1)
            found.append(Span(index + 1, end + 1, "definition" if has_body else "declaration"))
        return found

    def _body_lines(self, owner: Span) -> list[int]:
        """Indices of the lines directly inside a class body (not inside its functions)."""
        inside = []
        for line in self.code_lines(owner.first - 1):
            if line.index >= owner.last:
                break
            if len(line.open_braces) == 1:
                inside.append(line.index)
        return inside

    def _members(self, owner: Span, name: str) -> list[Span]:
        body = self._body_lines(owner)
        spans = [s for index in body for s in self._functions(name, index, index + 1)]
        field = re.compile(r"^\s*[\w:<>,*&\s]+?[\s*&]" + re.escape(name) + r"\s*(?:;|=|\{|\[)")
        nested = re.compile(r"^\s*" + TYPE_KEYWORD + r"\s+" + ATTRIBUTES + re.escape(name) + r"\b")
        for index in body:
            code = self.code[index]
            if nested.match(code):
                end, has_body = self._definition_end(index)
                if has_body:
                    spans.append(Span(index + 1, end + 1, "type"))
            elif field.match(code) and "(" not in code and ")" not in code:  # `struct Impl {` is no field
                spans.append(Span(index + 1, index + 1, "field"))
        return sorted(set(spans), key=lambda s: s.first)


@dataclass
class Conditional:
    braces_at_if: tuple[str, ...]
    braces_after_first_branch: tuple[str, ...] | None = None


class OpenBraces:
    """The braces open at a point of a walk through a header, from where the walk started.

    Each alternative of a conditional (`#elif`, `#else`) starts again from the braces open at its
    `#if`, so a brace opened in both branches is opened once; after `#endif` the first branch's
    braces stand. At an alternative of a conditional opened before the walk started, the walk is
    in the first branch: the rest of that conditional is skipped."""

    def __init__(self):
        self.open: list[str] = []  # per open brace, the code before it: `namespace c10`, `struct X`
        self.conditionals: list[Conditional] = []
        self.skipping = 0  # how deep inside the skipped rest of an outer conditional
        self._head = ""  # the code since the last brace or semicolon

    def directive(self, directive: str) -> None:
        if directive.startswith("if"):
            if self.skipping:
                self.skipping += 1
            else:
                self.conditionals.append(Conditional(tuple(self.open)))
        elif directive == "endif":
            if self.skipping:
                self.skipping -= 1
            elif self.conditionals:
                ended = self.conditionals.pop()
                if ended.braces_after_first_branch is not None:
                    self.open = list(ended.braces_after_first_branch)
        elif not self.skipping:  # elif, else
            if not self.conditionals:
                self.skipping = 1
                return
            current = self.conditionals[-1]
            if current.braces_after_first_branch is None:
                current.braces_after_first_branch = tuple(self.open)
            self.open = list(current.braces_at_if)

    def code(self, text: str) -> None:
        position = 0
        for mark in BRACE_OR_SEMICOLON.finditer(text):
            head = (self._head + " " + text[position : mark.start()]).strip()
            position = mark.end()
            if mark[0] == "{":
                self.open.append(head[-200:])
            elif mark[0] == "}" and self.open:
                self.open.pop()
            self._head = ""
        self._head = (self._head + " " + text[position:])[-200:]


def _prefer_definitions(spans: list[Span]) -> list[Span]:
    """A declaration plus its one definition is one symbol: keep the definition."""
    bodies = [s for s in spans if s.kind in {"definition", "type", "macro", "field", "constant"}]
    return bodies if len(bodies) == 1 else spans
