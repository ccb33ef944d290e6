"""The writers' source-link syntax: `[text](pytorch:path#Symbol)` links and
`--8<-- "pytorch:path#Symbol"` excerpts, rewritten to links at the installed tag.

Every link is verified: the path exists at the tag and the symbol is found exactly
once (an ambiguous symbol takes `@N` to pick the N-th candidate). Chapter pages
must link from every `##` section.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from handbook import versioned_prose
from handbook.environment import minor_version
from handbook.languages import DEFAULT
from handbook.markdown_structure import fenced, prose_lines, section_of_each_line, sections
from handbook.messages import Words
from handbook.sources.symbols import Span, find
from handbook.sources.tree import SourceError, SourceTree
from handbook.tree_files import DOCS_DIR, read_text

LINK = re.compile(r"\]\(pytorch:(?P<target>[^)\s]+)\)")
# PyTorch's documentation of the edition's release, not `docs/stable` (which is always the newest):
# `[notes](pytorch-docs:notes/cuda.html#memory-management)`. A page of PyTorch's site, by its path there.
DOCS_LINK = re.compile(r"\]\(pytorch-docs:(?P<path>[^)\s]*)\)")
DOCS_PATH = re.compile(r"(?:[a-z0-9_]+(?:[./-][a-z0-9_]+)*\.html|[a-z0-9_]+(?:/[a-z0-9_]+)*/|)(?:#[\w.-]+)?")
DOCS_SITE = "https://docs.pytorch.org/docs"
LINK_IN_WORD = re.compile(LINK.pattern + r"(?P<tail>[\w’']*)")
EXCERPT = re.compile(r"""^(?P<indent>[ \t]*)-{1,}8<-{1,}\s+["']pytorch:(?P<target>[^"']+)["']\s*$""")
MAX_EXCERPT_LINES = 60
LANGUAGES = {".py": "python", ".h": "cpp", ".hpp": "cpp", ".cuh": "cpp", ".cpp": "cpp", ".cu": "cpp", ".yaml": "yaml"}


@dataclass(frozen=True)
class Resolved:
    target: str  # as written: path#Symbol[@N]
    path: str
    symbol: str
    first: int | None  # repository lines; None for a path-only link
    last: int | None
    url: str


@dataclass
class Citation:
    resolved: Resolved
    page: str
    section: str


@dataclass
class PageLinks:
    markdown: str
    citations: list[Citation] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)


class SourceLinker:
    def __init__(self, tree: SourceTree, language: str = DEFAULT, docs_dir: str = DOCS_DIR):
        self.tree = tree
        self.docs_dir = docs_dir  # where the pages it rewrites are: its messages name their files
        self.words = Words(language)  # the site's: the links' titles and the excerpts' captions are in it
        self._resolved: dict[str, Resolved] = {}

    def resolve(self, target: str) -> Resolved:
        if target not in self._resolved:
            self._resolved[target] = self._resolve(target)
        return self._resolved[target]

    def _resolve(self, target: str) -> Resolved:
        path, _, symbol = target.partition("#")
        source = self.tree.file(path)
        if not symbol:
            return Resolved(target, path, "", None, None, self.tree.url(path))
        name, _, choice = symbol.partition("@")
        lines = source.lines()
        spans = find(path, lines, name, self.tree.caches)
        if not spans:
            raise SourceError(f"symbol {name!r} not found in {path} at {self.tree.identity.tag}")
        span = self._choose(spans, choice, path, name, lines)
        first, last = span.first - source.line_offset, span.last - source.line_offset
        return Resolved(target, path, symbol, first, last, self.tree.url(path, first, last))

    @staticmethod
    def _choose(spans: list[Span], choice: str, path: str, name: str, lines: list[str]) -> Span:
        if choice:
            if not choice.isdigit() or not 1 <= int(choice) <= len(spans):
                raise SourceError(
                    f"{path}#{name}@{choice}: there are {len(spans)} candidates, pick one of @1..@{len(spans)}"
                )
            return spans[int(choice) - 1]
        if len(spans) > 1:
            listed = "\n".join(f"  @{n}: {span.describe(lines)}" for n, span in enumerate(spans, 1))
            raise SourceError(
                f"symbol {name!r} is ambiguous in {path}; qualify it (Class::member, Class.method) or pick one "
                f"with @N:\n{listed}"
            )
        return spans[0]

    def link_markup(self, resolved: Resolved) -> str:
        """A resolved link: its URL and title in Markdown's syntax. Every link is at the installed
        torch's tag, the edition's, which the banner names on every page: no link carries a tag
        badge of its own (in running text, `where_span` follows it with its file and lines)."""
        tag, path = self.tree.identity.tag, resolved.path
        if resolved.first:
            title = self.words(
                "PyTorch {tag}: {path} lines {first}-{last}",
                tag=tag,
                path=path,
                first=resolved.first,
                last=resolved.last,
            )
        else:
            title = self.words("PyTorch {tag}: {path}", tag=tag, path=path)
        # The title in Markdown's own syntax: inside an attribute list, `__init__` would be read as bold.
        return f'({resolved.url} "{title}"){{: .pytorch-source }}'

    def excerpt_markup(self, resolved: Resolved, indent: str) -> str:
        source = self.tree.file(resolved.path)
        if resolved.first is None:
            raise SourceError(f"an excerpt needs a symbol: pytorch:{resolved.target}")
        lines = source.lines()[resolved.first - 1 + source.line_offset : resolved.last + source.line_offset]
        if len(lines) > MAX_EXCERPT_LINES:
            raise SourceError(
                f"excerpt pytorch:{resolved.target} is {len(lines)} lines long (at most {MAX_EXCERPT_LINES}); "
                "excerpt a smaller symbol"
            )
        language = next((lang for suffix, lang in LANGUAGES.items() if resolved.path.endswith(suffix)), "text")
        title = self.words(
            "{path}, lines {first}-{last} (PyTorch {tag})",
            path=resolved.path,
            first=resolved.first,
            last=resolved.last,
            tag=self.tree.identity.tag,
        )
        view = self.words("View {symbol} on GitHub", symbol=resolved.symbol)
        # PyTorch's code, not the handbook's words: kept out of the search index (Material skips an
        # element marked data-search-exclude). In a fence no line of it can end.
        info = f'{{.{language} title="{title}" linenums="{resolved.first}" data-search-exclude=""}}'
        excerpt = fenced("\n".join(lines), info, shortest=4)
        block = f"{excerpt}\n\n[{view}]{self.link_markup(resolved)}"
        return "\n".join(indent + line if line else line for line in block.splitlines())

    def rewrite(self, markdown: str, page: str, plain: bool = False) -> PageLinks:
        """Replace every source link and excerpt of a page; collect citations and errors.

        `plain` renders bare Markdown links (for notebooks, which know no attribute lists)."""
        result = PageLinks("")
        output: list[str] = []
        lines = markdown.splitlines()
        in_section = section_of_each_line(lines)
        for number, (line, prose, section) in enumerate(zip(lines, prose_lines(lines), in_section, strict=True), 1):
            if not prose:
                output.append(line)
                continue
            excerpt = EXCERPT.match(line)
            if excerpt:
                line = self._apply(
                    result,
                    page,
                    section,
                    number,
                    excerpt["target"],
                    lambda r, indent=excerpt["indent"]: self.excerpt_markup(r, indent),
                    line,
                )
            else:

                def linked(m: re.Match, section: str = section, number: int = number) -> str:
                    tail = m["tail"]  # the rest of a word the link is part of (`Edge`s): the suffix follows it

                    def markup(r: Resolved) -> str:
                        if plain:
                            return f"({r.url}){tail}"
                        return f"{self.link_markup(r)}{tail}{where_span(r)}"

                    return "]" + self._apply(result, page, section, number, m["target"], markup, m[0][1:])

                line = LINK_IN_WORD.sub(linked, line)
                line = DOCS_LINK.sub(lambda m, n=number: self._docs_link(result, page, n, m), line)
            output.append(line)
        result.markdown = "\n".join(output) + ("\n" if markdown.endswith("\n") else "")
        return result

    def docs_url(self, path: str) -> str:
        """`path` on PyTorch's documentation of this torch's release (`https://docs.pytorch.org/docs/2.13/...`)."""
        return f"{DOCS_SITE}/{minor_version(self.tree.identity.release)}/{path}"

    def _docs_link(self, result: PageLinks, page: str, number: int, match: re.Match) -> str:
        if not DOCS_PATH.fullmatch(match["path"]):
            result.errors.append(
                f"{self.docs_dir}/{page}:{number}: pytorch-docs:{match['path']}: not a path of PyTorch's documentation "
                "(lower-case words, `notes/cuda.html#anchor`, `generated/torch.cuda.memory_stats.html`, or empty "
                "for its home)"
            )
            return match[0]
        return f"]({self.docs_url(match['path'])})"

    def _apply(
        self, result: PageLinks, page: str, section: str, number: int, target: str, render, original: str
    ) -> str:
        try:
            resolved = self.resolve(target)
            rendered = render(resolved)
        except SourceError as error:
            result.errors.append(f"{self.docs_dir}/{page}:{number}: pytorch:{target}: {error}")
            return original
        result.citations.append(Citation(resolved, page, section))
        return rendered


def where_text(resolved: Resolved) -> str:
    """What a link's suffix shows: the file's name and the lines, e.g. `TensorImpl.h:120-160`; the
    whole path is in the link's title and its URL, and on the Source map."""
    name = resolved.path.rsplit("/", 1)[-1]
    return f"{name}:{resolved.first}-{resolved.last}" if resolved.first else name


def where_span(resolved: Resolved) -> str:
    return f'<span class="pytorch-where">{_literal(where_text(resolved))}</span>'


def _literal(text: str) -> str:
    """`text` as inline HTML that Markdown leaves as it is (`__init__.py` is not bold)."""
    return "".join(f"&#{ord(c)};" if c in "_*`[]\\<>&" else c for c in text)


def sections_without_links(markdown: str) -> list[str]:
    """Titles of `##` sections that contain no source link or excerpt in their prose."""
    lines = markdown.splitlines()
    prose = prose_lines(lines)
    return [
        section.title
        for section in sections(lines)
        if not any(
            prose[number] and (LINK.search(lines[number]) or EXCERPT.match(lines[number]))
            for number in range(section.heading.line, section.end)
        )
    ]


def moved_anchors(before: dict[str, str], after: dict[str, str]) -> list[str]:
    """The link targets recorded in both whose lines differ, sorted: what a release moved."""
    return sorted(target for target in before.keys() & after.keys() if before[target] != after[target])


def moved_rows(before: dict[str, str], after: dict[str, str]) -> list[str]:
    """A table's rows for the moved anchors: the target, its lines before, its lines after."""
    return [f"| `{target}` | {before[target]} | {after[target]} |" for target in moved_anchors(before, after)]


@dataclass
class SourceAnchors:
    anchors: dict[str, str]  # target as written -> `first-last`, or `file` for a path-only link
    errors: list[str]


def source_anchors(root: Path, docs_dir: str = DOCS_DIR) -> SourceAnchors:
    """Every source link's lines across the pages, as the installed torch's edition shows them."""
    linker = SourceLinker(SourceTree(root))
    found = SourceAnchors({}, [])
    for path in sorted((root / docs_dir).rglob("*.md")):
        shown = path.relative_to(root).as_posix()
        markdown = versioned_prose.render(read_text(path, shown), linker.tree.identity.release, where=shown)
        links = linker.rewrite(markdown, path.relative_to(root / docs_dir).as_posix())
        found.errors += links.errors
        for citation in links.citations:
            r = citation.resolved
            found.anchors[r.target] = f"{r.first}-{r.last}" if r.first else "file"
    return found
