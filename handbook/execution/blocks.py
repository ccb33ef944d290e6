"""Finding the executed blocks of a page: fences, snippet includes, block ids.

The scan reads a page's Markdown as written (before pymdownx.snippets expands it)
so that each block knows where its code really lives: a page line or a snippet
file line. Rendering later matches blocks by their expanded code.
"""

from __future__ import annotations

import dataclasses
import functools
import re
from dataclasses import dataclass, field
from pathlib import Path

import markdown
from markdown.extensions.attr_list import get_attrs
from pymdownx.snippets import SnippetExtension, SnippetMissingError, SnippetPreprocessor
from pymdownx.superfences import RE_NESTED_FENCE_START, RE_OPTIONS

from handbook.errors import InputError
from handbook.execution.figures import check_name
from handbook.markdown_structure import FenceError, fences, section_of_each_line
from handbook.tree_files import DOCS_DIR, confined, read_text, refuse_links

INCLUDE = re.compile(r"""^\s*-{1,}8<-{1,}\s+(?P<quote>["'])(?P<target>[^"']+)(?P=quote)\s*$""")
EXECUTED_LANGUAGES = {"python", "py"}
# Python under another name (Pygments' names of its Python lexers), or in another case: a fence that shows
# Python no build ran, whatever it claims its output is. Such a fence fails the scan.
PYTHON_NAMES = {"python", "py", "python3", "py3", "python2", "py2", "pyi", "pycon", "ipython", "ipython3", "sage"}
# A block id names its recording file: a plain name, never a path.
SAFE_ID = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.:-]{0,99}")
SOURCE_EXCERPT = "pytorch:"  # `--8<-- "pytorch:..."` is a source excerpt (handbook.sources), not a file

# The options an executed fence may carry. The engine's own are not shown as attributes.
ENGINE_OPTIONS = {"timeout", "device", "memory", "predicts", "figure", "alt"}
# markdown-exec's, which keep their meaning (`id` also names the recording) ...
MARKDOWN_EXEC_OPTIONS = {"exec", "id", "idprefix", "source", "result", "tabs", "updatetoc"}
# ... and what goes on the source's code block (pymdownx.highlight, Material).
CODE_BLOCK_OPTIONS = {"title", "hl_lines", "linenums", "anchor_linenums", "line_spans"}
# markdown-exec's that cannot mean here what they mean there.
UNSUPPORTED_OPTIONS = {
    "html": "outputs are recorded and shown as text",
    "session": "every block of a page already runs in the page's one namespace, and pages never share one",
    "returncode": "a block that raises or exits fails the build; catch and print an error to show it",
    "workdir": "each page runs in a fresh temporary directory of its own",
    "width": "blocks run before the page is rendered; set COLUMNS in the block if its output depends on it",
}


class BlockError(InputError):
    """A page whose blocks cannot be read: names the page and line."""


@dataclass(frozen=True)
class Block:
    page: str  # path under its docs_dir, e.g. "tensors.md"
    index: int  # 1-based position among the page's executed blocks
    id: str
    code: str
    origin_file: str  # repository-relative file holding the code
    origin_line: int  # 1-based line in origin_file of the code's first line
    page_line: int  # line of the opening fence in the page
    section: str = field(default="", compare=False)  # title of the `##` section holding the block
    options: dict[str, str] = field(default_factory=dict, hash=False, compare=False)
    docs_dir: str = field(default=DOCS_DIR, compare=False)  # the directory its page was scanned in

    @property
    def page_file(self) -> str:
        """The page's repository-relative file, as every message names it (`docs-zh/tensors.md`)."""
        return f"{self.docs_dir}/{self.page}"

    @property
    def origin(self) -> str:
        return f"{self.origin_file}:{self.origin_line}"

    @property
    def device(self) -> str:
        return self.options.get("device", "cpu")

    @property
    def figure(self) -> str | None:
        """The SVG file the block saves its figure as (`figure="segments.svg"`), or None."""
        return self.options.get("figure") or None

    @property
    def alt(self) -> str:
        """What the block's figure shows, in words (`alt="..."`)."""
        return self.options.get("alt", "").strip()

    @property
    def label(self) -> str:
        return f"{self.page} block {self.index} ({self.id})"

    @property
    def anchor(self) -> str:
        """The id the block's place on its page has, for links to the block itself."""
        return f"block-{self.id}"


@dataclass(frozen=True)
class Page:
    path: str  # under its docs_dir
    blocks: tuple[Block, ...]
    docs_dir: str = DOCS_DIR

    @property
    def file(self) -> str:
        """The page's repository-relative file, as every message names it (`docs-zh/tensors.md`)."""
        return f"{self.docs_dir}/{self.path}"

    def shown_in(self, docs_dir: str) -> Page:
        """This page's blocks as a translation in `docs_dir` shows them (its blocks are these, byte for
        byte): messages name the translated page, and each block's code keeps its origin."""
        blocks = tuple(dataclasses.replace(block, docs_dir=docs_dir) for block in self.blocks)
        return dataclasses.replace(self, blocks=blocks, docs_dir=docs_dir)


def fence_header(header: str) -> tuple[str, dict[str, str]] | None:
    """A fence's language and options, read from its opening line (without its indent) by
    pymdownx.superfences' own patterns, exactly as markdown-exec is given them; None for a
    header superfences cannot read (it then shows the fence as code, and runs nothing)."""
    match = RE_NESTED_FENCE_START.match(header)
    if match is None or match["unrecognized"]:
        return None
    if match["attrs"] is not None:  # {.python exec="on"}: the first class is the language
        pairs = get_attrs(match["attrs"])
        classes = [value for key, value in pairs if key == "."]
        return (classes[0] if classes else ""), {key: value for key, value in pairs if key != "."}
    options = {
        m["key"]: m["key"] if m["value"] is None else m["value"] for m in RE_OPTIONS.finditer(match["options"] or "")
    }
    return match["lang"] or "", options


@functools.cache
def _snippets() -> SnippetPreprocessor:
    """pymdownx.snippets itself, configured as mkdocs.yml configures it (`dedent_subsections: true`),
    so that a block's code is exactly what the page shows."""
    config = {key: value[0] for key, value in SnippetExtension().config.items()}
    config.update(check_paths=True, dedent_subsections=True)
    return SnippetPreprocessor(config, markdown.Markdown())


def read_region(root: Path, target: str, where: str) -> tuple[str, str, int]:
    """Resolve a pymdownx.snippets target (`path`, `path:region`, `path:3:10`) to (code, file, first line)."""
    snippets = _snippets()
    parsed = snippets.parse_snippet_target(target) or {"path": target, "start": [], "end": [], "section": None}
    path_text = parsed["path"]
    lines = read_text(included_file(root, path_text, where), f"{where}: {path_text}").splitlines()
    if parsed["section"]:
        region = parsed["section"]
        try:
            selected = snippets.extract_section(region, lines)
        except SnippetMissingError:
            selected = None
        starts = [
            n
            for n, line in enumerate(lines, 1)
            if (mark := snippets.match_section(line)) and mark["name"] == region and mark["type"] == "start"
        ]
        if selected is None or not starts:
            raise BlockError(
                f"{where}: region {region!r} not found in {path_text} (expected '# --8<-- [start:{region}]' ... "
                f"'# --8<-- [end:{region}]')"
            )
        first = starts[0] + 1
        what = f"region {region!r} in {path_text}"
    elif parsed["start"]:
        if len(parsed["start"]) > 1:
            raise BlockError(
                f"{where}: {target!r} names several line ranges; an executed block is one range, so that its "
                "tracebacks name the right lines"
            )
        selected = snippets.extract_lines(parsed["start"], parsed["end"], lines)
        begin = parsed["start"][0]
        first = (max(len(lines) + begin, 0) if begin < 0 else begin) + 1
        what = f"lines {target.removeprefix(path_text)} of {path_text}"
    else:
        kept = _without_region_marks(snippets, lines)
        selected, first = [line for _, line in kept], kept[0][0] if kept else 1
        what = f"included file {path_text!r}"
    if not any(line.strip() for line in selected):
        raise BlockError(f"{where}: {what} is empty")
    return "\n".join(selected), path_text, first


def _without_region_marks(snippets: SnippetPreprocessor, lines: list[str]) -> list[tuple[int, str]]:
    """A whole file as pymdownx.snippets includes it (`parse_snippets`): region markers left out,
    an escaped one (`;--8<--`) shown without its `;`; with each line's number."""
    kept = []
    for number, line in enumerate(lines, 1):
        mark = snippets.match_section(line)
        if mark and not mark["escape"]:
            continue
        if mark:
            line = "".join(
                [mark["pre"], mark["escape"].replace(";", "", 1), mark["inline_marker"], mark["section"], mark["post"]]
            )
        kept.append((number, line))
    return kept


def included_file(root: Path, path_text: str, where: str) -> Path:
    """The file an include names: inside the repository, reached through no link, and there."""
    path = confined(root, path_text, f"{where}: included file")
    if not path.is_file():
        raise BlockError(f"{where}: included file {path_text!r} does not exist")
    return path


def include_targets(lines: list[str]) -> list[tuple[int, str]]:
    """(line, path) of every file pymdownx.snippets includes from `lines`, by its own patterns:
    `--8<-- "file"` lines and the lines between two bare `--8<--` lines; escaped (`;--8<--`)
    and commented (`;file`) ones left out, as are source excerpts."""
    found, block = [], False
    for number, line in enumerate(lines, 1):
        marker = SnippetPreprocessor.RE_ALL_SNIPPETS.match(line)
        if marker and marker["escape"]:
            continue
        if marker and marker["block_marker"]:
            block = not block
            continue
        if marker and not block:
            target = marker["snippet"][1:-1].strip()
        elif block and not marker:
            target = line.strip()
        else:
            continue
        if target and not target.startswith((";", SOURCE_EXCERPT)):
            parsed = _snippets().parse_snippet_target(target)
            found.append((number, parsed["path"] if parsed else target))
    return found


def check_includes(root: Path, lines: list[str], where: str, seen: frozenset[str] = frozenset()) -> None:
    """Every include of `lines` (in any fence or in prose), and every include of the files
    they include, names a file of the repository: pymdownx.snippets reads them all."""
    for number, path_text in include_targets(lines):
        path = included_file(root, path_text, f"{where}:{number}")
        if path_text not in seen:
            lines_included = read_text(path, f"{where}:{number}: {path_text}").splitlines()
            check_includes(root, lines_included, path_text, seen | {path_text})


def expand_includes(markdown: str, root: Path, where: str) -> str:
    """The Markdown with every snippet include line replaced by what it includes (as
    pymdownx.snippets does on the page), for readers of the source such as notebooks.
    Source excerpts (`pytorch:` targets) are not snippets and are left alone."""
    lines = []
    for number, line in enumerate(markdown.splitlines(), 1):
        include = INCLUDE.match(line)
        if include and not include["target"].startswith(SOURCE_EXCERPT):
            indent = line[: len(line) - len(line.lstrip())]
            code = read_region(root, include["target"], f"{where}:{number}")[0]
            lines += [indent + text if text else text for text in code.splitlines()]
        else:
            lines.append(line)
    return "\n".join(lines) + ("\n" if markdown.endswith("\n") else "")


def scan_page(root: Path, docs_dir: str, page: str) -> Page:
    """Return the executed blocks of `docs_dir/page`, in page order."""
    page_file = f"{docs_dir}/{page}"
    lines = read_text(root / page_file, page_file).splitlines()
    try:
        page_fences = fences(lines)
    except FenceError as error:
        raise BlockError(f"{page_file}:{error.line}: {error}") from error
    sections = section_of_each_line(lines)
    blocks: list[Block] = []
    seen_ids: dict[str, int] = {}
    seen_figures: dict[str, int] = {}
    for fence in page_fences:
        fence_line = fence.first + 1
        where = f"{page_file}:{fence_line} (block {len(blocks) + 1})"
        header = lines[fence.first][len(fence.indent) :]
        read = fence_header(header)
        if read is None:
            if fence.lang.lower() in PYTHON_NAMES:
                raise BlockError(
                    f"{where}: pymdownx.superfences cannot read this fence's options ({header.strip()!r}), so it "
                    'would show the block without running it: write each as name="value", quoted, with a name '
                    "of letters, digits and '_'"
                )
            continue
        lang, options = read
        if lang not in EXECUTED_LANGUAGES:
            if lang.lower() in PYTHON_NAMES:
                raise BlockError(
                    f"{where}: a fence of {lang!r} shows Python that no build runs: every Python block on a page "
                    'runs (```python exec="on"); show code that must not run, or a session, as `text`'
                )
            continue
        body = fence.body(lines)
        if options.get("exec", "").lower() not in {"on", "yes", "true", "1"}:
            raise BlockError(
                f'{where}: a python fence without exec="on"; every Python block on a page runs (use another '
                "language to show code that does not)"
            )
        check_options(options, where)
        check_figure(options, where)
        includes = [INCLUDE.match(line) for line in body]
        if any(includes):
            if len([line for line in body if line.strip()]) != 1:
                raise BlockError(f"{where}: a block is either one '--8<--' include or inline code, not both")
            target = next(m for m in includes if m)["target"]
            code, origin_file, origin_line = read_region(root, target, where)
            default_id = _region_id(target)
        else:
            code = "\n".join(body)
            origin_file, origin_line = page_file, fence_line + 1
            default_id = f"block-{len(blocks) + 1}"
        block_id = options.get("id") or default_id
        if not SAFE_ID.fullmatch(block_id):
            raise BlockError(
                f"{where}: block id {block_id!r} cannot name a recording file: an id is up to 100 letters, digits, "
                "'_', '-', '.' and ':', starting with a letter, digit or '_' (give the block an id=\"...\")"
            )
        if block_id in seen_ids:
            raise BlockError(
                f"{where}: block id {block_id!r} is used twice on {page_file} (also at line "
                f'{seen_ids[block_id]}); give one an id="..."'
            )
        seen_ids[block_id] = fence_line
        if figure := options.get("figure"):
            if figure in seen_figures:
                raise BlockError(
                    f"{where}: figure={figure!r} is drawn by two blocks of {page_file} (also at line "
                    f"{seen_figures[figure]}); give each figure a file name of its own"
                )
            seen_figures[figure] = fence_line
        block = Block(
            page,
            len(blocks) + 1,
            block_id,
            code.strip("\n"),
            origin_file,
            origin_line,
            fence_line,
            sections[fence.first],
            options,
            docs_dir,
        )
        blocks.append(block)
    check_includes(root, lines, page_file)  # those of text fences and prose, which pymdownx.snippets shows
    return Page(page, tuple(blocks), docs_dir)


def check_options(options: dict[str, str], where: str) -> None:
    """An option that would be dropped or misread fails the scan instead."""
    for name in options:
        if name in UNSUPPORTED_OPTIONS:
            raise BlockError(f"{where}: the fence option {name}= is not supported here: {UNSUPPORTED_OPTIONS[name]}")
        if name not in ENGINE_OPTIONS | MARKDOWN_EXEC_OPTIONS | CODE_BLOCK_OPTIONS:
            known = ", ".join(sorted(ENGINE_OPTIONS | MARKDOWN_EXEC_OPTIONS | CODE_BLOCK_OPTIONS))
            raise BlockError(f"{where}: unknown fence option {name}= (known: {known})")


# An alt text says what the figure shows to a reader who cannot see it: a sentence, not a word.
MIN_ALT_CHARS = 20


def check_figure(options: dict[str, str], where: str) -> None:
    """A figure is a file name of its own, said in words by `alt=`, drawn by a block that runs here."""
    figure, alt = options.get("figure"), options.get("alt")
    if figure is None:
        if alt is not None:
            raise BlockError(f'{where}: alt= describes a figure, and the block declares none (figure="name.svg")')
        return
    if problem := check_name(figure):
        raise BlockError(f"{where}: {problem}")
    if alt is None or not alt.strip():
        raise BlockError(
            f'{where}: figure={figure!r} has no alt="...": say what the figure shows, for readers who cannot see it'
        )
    if len(alt.strip()) < MIN_ALT_CHARS or alt.strip().lower() == figure.lower():
        raise BlockError(
            f"{where}: alt={alt!r} does not say what the figure shows; write a sentence (at least "
            f"{MIN_ALT_CHARS} characters) naming what it draws and what it shows"
        )
    if options.get("device") == "cuda":
        raise BlockError(
            f"{where}: figure= on a GPU-only block: its figure could not be drawn or checked here; draw it "
            "from a CPU block"
        )


def _region_id(target: str) -> str:
    path_text, _, region = target.partition(":")
    stem = Path(path_text).stem
    return f"{stem}-{region}" if region else stem


def scan_docs(root: Path, docs_dir: str = DOCS_DIR, only: set[str] | None = None) -> list[Page]:
    """Every page's blocks; a link where the build publishes, runs or writes fails the scan first."""
    refuse_links(root, (docs_dir,))
    base = confined(root, docs_dir, "docs_dir")
    pages = sorted(p.relative_to(base).as_posix() for p in base.rglob("*.md"))
    return [scan_page(root, docs_dir, page) for page in pages if only is None or page in only]
