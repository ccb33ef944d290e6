"""Labs: hands-on exercises, each a Jupytext percent-format file `labs/<name>.py`, run as a page.

A lab is read with Jupytext and reviewed as text. Each code cell says its role in its
metadata (`# %% tags=["solution"]`): `setup` (runs), `starter` (what the reader completes,
with `...`; never runs), `solution` (runs; hidden on the page and in the notebook), `check`
(runs after the solution, and prints `correct` or what is wrong and why) and `mistake` (a
deliberately wrong answer, run through the same check; left out of the page and the
notebook). An exercise is a starter (`exercise="<name>"` names it) followed by its
solution, its check and at least one mistake, in that order.

The engine runs a lab as it runs a page: its cells become the `Block`s of one `Page`
(`docs_dir` "labs", path "<name>.py"), in the page process of their own, recorded under
`recordings/torch-<release>/labs/<name>/`. For each exercise the blocks run in this order:
each mistake then the check (whose verdict must not be `correct`), then the solution and the
check (whose verdict must be `correct`), so that what later cells see is the solution's
state. `verdict` is that rule; the pipeline applies it to every check it runs.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field
from pathlib import Path

from handbook import languages
from handbook.execution.blocks import SAFE_ID, Block, BlockError, Page
from handbook.markdown_structure import headings, shown_title
from handbook.tree_files import read_text

LABS_DIR = languages.LABS_DIRS[0]  # the original's labs, the ones that run
SUFFIX = ".py"
TEXT, SETUP, STARTER, SOLUTION, CHECK, MISTAKE = "text", "setup", "starter", "solution", "check", "mistake"
ROLES = (SETUP, STARTER, SOLUTION, CHECK, MISTAKE)
CORRECT = "correct"  # the line a check prints when the answer is right
CELL_MARK = re.compile(r"^# %%(?:\s|$)")
# What a code cell's metadata may hold besides its role: the exercise a starter opens, and the
# engine's own settings (CONTRIBUTING.md, "Fence options").
CELL_OPTIONS = {"tags", "exercise", "timeout", "memory"}
# Keys Jupytext writes itself (blank lines kept between cells).
JUPYTEXT_KEYS = {"lines_to_next_cell"}


class LabError(BlockError):
    """A lab whose cells cannot be read as exercises: names the lab and the line."""


@dataclass(frozen=True)
class Cell:
    kind: str  # "markdown" or "code"
    role: str  # TEXT for markdown; a ROLES entry for code
    source: str
    line: int  # 1-based line of its `# %%` mark
    code_line: int  # 1-based line of its source's first line
    exercise: str = ""  # the exercise it belongs to ("" outside every one)
    options: dict[str, str] = field(default_factory=dict, hash=False, compare=False)


@dataclass(frozen=True)
class Lab:
    path: str  # `tensors.py`, under its labs directory
    cells: tuple[Cell, ...]
    labs_dir: str = LABS_DIR

    @property
    def file(self) -> str:
        return f"{self.labs_dir}/{self.path}"

    @property
    def name(self) -> str:
        return self.path.removesuffix(SUFFIX)

    @property
    def title(self) -> str | None:
        """The first level-1 heading of its text cells."""
        for cell in self.cells:
            if cell.kind == "markdown":
                for heading in headings(cell.source.splitlines()):
                    if heading.level == 1:
                        return shown_title(heading.title)
        return None

    def exercises(self) -> list[str]:
        return [cell.exercise for cell in self.cells if cell.role == STARTER]

    def page(self) -> Page:
        """The blocks that run, in the order they run (the module's docstring)."""
        blocks: list[Block] = []
        section = ""
        setups = 0
        by_exercise: dict[str, dict[str, list[Cell]]] = {}
        for cell in self.cells:
            if cell.exercise:
                by_exercise.setdefault(cell.exercise, {}).setdefault(cell.role, []).append(cell)

        def add(cell: Cell, block_id: str, **options: str) -> None:
            blocks.append(
                Block(
                    self.path,
                    len(blocks) + 1,
                    block_id,
                    cell.source,
                    self.file,
                    cell.code_line,
                    cell.line,
                    section,
                    {**cell.options, "role": cell.role, **options},
                    self.labs_dir,
                )
            )

        for cell in self.cells:
            if cell.kind == "markdown":
                found = [h for h in headings(cell.source.splitlines()) if h.level == 2]
                section = found[-1].title if found else section
            elif cell.role == SETUP:
                setups += 1
                add(cell, f"setup-{setups}")
            elif cell.role == STARTER:
                roles = by_exercise[cell.exercise]
                (solution,), (check,) = roles[SOLUTION], roles[CHECK]
                for number, mistake in enumerate(roles[MISTAKE], 1):
                    name = f"{cell.exercise}-mistake-{number}"
                    add(mistake, name)
                    add(check, f"{name}-check", expects=MISTAKE, answer=f"{self.file}:{mistake.code_line}")
                add(solution, f"{cell.exercise}-solution")
                add(check, f"{cell.exercise}-check", expects=CORRECT, answer=f"{self.file}:{solution.code_line}")
        return Page(self.path, tuple(blocks), self.labs_dir)


def verdict(block: Block, output: str) -> str | None:
    """What is wrong with a check's output, if anything: against its solution it must print a line
    `correct`; against a mistake it must not, and must say what is wrong. None for other blocks."""
    expects = block.options.get("expects")
    said_correct = any(line.strip() == CORRECT for line in output.splitlines())
    if expects == CORRECT and not said_correct:
        return (
            f"the check at {block.origin} does not print {CORRECT!r} for the solution at "
            f"{block.options['answer']}: either the solution or the check is wrong"
        )
    if expects == MISTAKE and said_correct:
        return (
            f"the check at {block.origin} prints {CORRECT!r} for the deliberate mistake at "
            f"{block.options['answer']}: the check accepts a wrong answer"
        )
    if expects == MISTAKE and not output.strip():
        return (
            f"the check at {block.origin} prints nothing for the mistake at "
            f"{block.options['answer']}: it must say what is wrong, and why"
        )
    return None


def read_lab(root: Path, labs_dir: str, path: str) -> Lab:
    """The lab `labs_dir/path`, its cells read by Jupytext and checked as exercises."""
    file = f"{labs_dir}/{path}"
    return parse_lab(read_text(root / file, file), labs_dir, path)


def parse_lab(text: str, labs_dir: str, path: str) -> Lab:
    """A lab's cells from its file's `text` (see `read_lab`)."""
    import jupytext  # only where labs are read: the page processes never need it

    file = f"{labs_dir}/{path}"
    lines = text.splitlines()
    marks = [number for number, line in enumerate(lines, 1) if CELL_MARK.match(line)]
    try:
        notebook = jupytext.reads(text, fmt="py:percent")
    except Exception as error:  # Jupytext raises what its parsers raise
        raise LabError(f"{file}: Jupytext cannot read it as a percent-format notebook: {error}") from error
    cells = notebook.cells
    above_first = lines[: marks[0] - 1] if marks else lines
    if not marks or len(cells) != len(marks) or any(line.strip() and not line.startswith("#") for line in above_first):
        raise LabError(
            f"{file}: {len(cells)} cell(s) but {len(marks)} '# %%' mark(s): every cell starts with its own "
            "'# %%' line (nothing above the first but comments)"
        )
    read: list[Cell] = []
    exercise = ""
    for cell, line in zip(cells, marks, strict=True):
        where = f"{file}:{line}"
        if cell.cell_type == "markdown":
            read.append(Cell("markdown", TEXT, cell.source, line, line + 1, exercise))
            continue
        if cell.cell_type != "code":
            raise LabError(f"{where}: a {cell.cell_type} cell; a lab has markdown and code cells")
        metadata = {key: value for key, value in cell.metadata.items() if key not in JUPYTEXT_KEYS}
        role = _role(metadata, where)
        code_line = _first_code_line(lines, line, cell.source, where)
        options = {key: str(value) for key, value in metadata.items() if key in {"timeout", "memory"}}
        if role == STARTER:
            exercise = str(metadata.get("exercise", ""))
            if not SAFE_ID.fullmatch(exercise) or exercise in {c.exercise for c in read}:
                raise LabError(
                    f'{where}: a starter opens an exercise and names it, once per lab: exercise="<name>" (letters, '
                    f"digits, '_', '-', '.'), not {exercise!r}"
                )
            _check_starter(cell.source, where)
        elif "exercise" in metadata:
            raise LabError(f"{where}: exercise= belongs on the exercise's starter cell")
        if role == SETUP and exercise and not _exercise_complete(read, exercise):
            raise LabError(f"{where}: a setup cell inside exercise {exercise!r}, before its last mistake")
        if role in {SOLUTION, CHECK, MISTAKE} and not exercise:
            raise LabError(f"{where}: a {role} cell outside any exercise (a starter opens one)")
        if not cell.source.strip():
            raise LabError(f"{where}: an empty {role} cell")
        read.append(Cell("code", role, cell.source, line, code_line, exercise if role != SETUP else "", options))
    lab = Lab(path, tuple(read), labs_dir)
    _check_order(lab)
    return lab


def _role(metadata: dict, where: str) -> str:
    unknown = set(metadata) - CELL_OPTIONS
    if unknown:
        raise LabError(
            f"{where}: unknown cell metadata {', '.join(sorted(unknown))} (known: {', '.join(sorted(CELL_OPTIONS))})"
        )
    tags = metadata.get("tags") or []
    roles = [tag for tag in tags if tag in ROLES]
    if len(roles) != 1 or len(tags) != 1:
        raise LabError(
            f'{where}: a code cell carries exactly one role as its tag (# %% tags=["solution"]), one of '
            f"{', '.join(ROLES)}; this one has {tags!r}"
        )
    return roles[0]


def _first_code_line(lines: list[str], mark: int, source: str, where: str) -> int:
    """The line of the file that holds the first line of a cell's source (tracebacks name it)."""
    first = source.splitlines()[0] if source.strip() else ""
    for number in range(mark + 1, len(lines) + 1):
        if lines[number - 1] == first:
            return number
        if CELL_MARK.match(lines[number - 1]):
            break
    raise LabError(f"{where}: the cell's first line was not found below its mark")


def _check_starter(source: str, where: str) -> None:
    """A starter parses, and leaves the reader something to complete (`...`)."""
    try:
        tree = ast.parse(source)
    except SyntaxError as error:
        raise LabError(f"{where}: the starter is not valid Python: {error.msg} (its line {error.lineno})") from error
    if not any(isinstance(node, ast.Constant) and node.value is Ellipsis for node in ast.walk(tree)):
        raise LabError(f"{where}: a starter leaves the reader something to complete, written `...`")


def _exercise_complete(cells: list[Cell], exercise: str) -> bool:
    """Its code cells end with a mistake: a setup cell after it (and after the text that follows) is shared."""
    roles = [cell.role for cell in cells if cell.exercise == exercise and cell.kind == "code"]
    return bool(roles) and roles[-1] == MISTAKE


def _check_order(lab: Lab) -> None:
    """Each exercise: its starter, solution and check once each, in that order, then its mistakes."""
    for exercise in lab.exercises():
        cells = [cell for cell in lab.cells if cell.exercise == exercise and cell.kind == "code"]
        roles = [cell.role for cell in cells]
        mistakes = len(roles) - 3
        if roles[:3] != [STARTER, SOLUTION, CHECK] or mistakes < 1 or set(roles[3:]) != {MISTAKE}:
            raise LabError(
                f"{lab.file}:{cells[0].line}: exercise {exercise!r} has cells {', '.join(roles)}; an exercise is "
                "a starter, its solution, its check, then one or more mistakes, in that order"
            )


def lab_files(root: Path, labs_dir: str = LABS_DIR) -> list[str]:
    """The labs under `labs_dir` (none where it does not exist), by path."""
    base = root / labs_dir
    return sorted(p.relative_to(base).as_posix() for p in base.glob(f"*{SUFFIX}")) if base.is_dir() else []


def scan_labs(root: Path, labs_dir: str = LABS_DIR, only: set[str] | None = None) -> list[Lab]:
    return [read_lab(root, labs_dir, path) for path in lab_files(root, labs_dir) if only is None or path in only]


def lab_pages(root: Path, labs_dir: str = LABS_DIR, only: set[str] | None = None) -> list[Page]:
    """Every lab as the page the engine runs."""
    return [lab.page() for lab in scan_labs(root, labs_dir, only)]
