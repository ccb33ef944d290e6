"""Running pages: each in its own process, forked by the build's zygote, which has imported torch.

Pages run in parallel (one per core, as many as fit in memory); within a page,
blocks run in order in one namespace. The parent watches each block's time and
output, and the memory of each page's process tree, and tells a raise, a
`sys.exit`, an `os._exit`, a crash (a signal), a timeout, too much output and a
page past its memory limit apart. When a page ends, nothing it started is left
running: what is killed is reported with the block that started it.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from multiprocessing.connection import wait
from pathlib import Path

import psutil

from handbook import switches
from handbook.environment import cache_root
from handbook.execution import (
    cgroups,
    confinement,
    figures,
    page_process,
    processes,
    protocol,
    shared_memory,
    zygote,
)
from handbook.execution.protocol import BlockJob, PageRequest
from handbook.execution.results import BlockRun
from handbook.execution.status import Status
from handbook.switches import parse_size, seconds

DEFAULT_TIMEOUT = 120.0
MAX_OUTPUT_BYTES = page_process.MAX_OUTPUT_BYTES
WATCH_SECONDS = 0.1  # how often each page's memory is measured
PEAK_WATCH_SECONDS = 0.5  # how often its proportional set size is (slower to read: ~5 ms a process)
# How long a page whose pipe closed may take to exit before it counts as still running, and how long
# an ended page may take to exit.
EXIT_SECONDS = 2.0
STACK_SECONDS = 2.0  # how long a page past its timeout may take to print its threads' stacks
ORPHANS_SECONDS = 30.0  # how long the zygote may take to end what a page that died left running
# Pages may use this share of the memory available when the build starts; the rest is
# left to the build's own processes and to whatever else runs on the machine.
MEMORY_SHARE = 0.75
PAGE_MEMORY_FLOOR = 2 * 2**30  # below this per page, fewer pages run at once
# Pages run side by side only while the peaks they reached last time, summed, stay within this
# share of the heaviest page's: the build needs about what its heaviest page needs alone.
PEAK_SHARE = 1.10


# What pages have said of their view of the tree (`confinement.confine`), for the build's log.
confinements: set[str] = set()


@dataclass
class PageJob:
    page: str
    blocks: list[BlockJob]


@dataclass(frozen=True)
class Limits:
    """How many pages run at once, and how much resident memory each page's processes may hold."""

    workers: int
    page_memory: int
    page_memory_source: str  # said when a page goes past it


@dataclass
class _Running:
    job: PageJob
    pid: int
    conn: socket.socket  # the engine's end of the page's socket (not blocking)
    capture_dir: str
    work_dir: str
    runs: list[BlockRun]
    limits: Limits
    machine: dict  # what it runs on, as the zygote observed it
    directories: list[str] = field(default_factory=list)  # its own, removed when it ends
    view_expected: bool = False  # pages get a read-only view here: the engine checks this one has it
    read_only: list[str] = field(default_factory=list)  # what the engine checks it sees read-only
    current: int | None = None
    last: int = 0  # the block started last
    capture: str | None = None
    started: float = 0.0
    finished: bool = False
    frames: protocol.Frames = field(default_factory=protocol.Frames)  # what the page sent, as it arrives
    confined: bool = False  # it said what it sees (its first message)
    done: list[int] = field(default_factory=list)  # the blocks it reported ended, in order
    late: bool = False  # it said what threads printed late (then what it ended, then that it finished)
    leftovers: bool = False
    next_watch: float = 0.0
    next_peak_watch: float = 0.0
    started_by: dict[int, int] = field(default_factory=dict)  # pid -> block index, as the page saw it
    known: dict[int, psutil.Process] = field(default_factory=dict)  # its descendants, as last measured
    figures: dict[int, bytes] = field(default_factory=dict)  # block index -> its figure file, as the page sent it
    # Bytes: the most its processes held at once, as their proportional set sizes summed (memory they
    # share, torch's pages inherited from the zygote above all, counted once), what the build's own
    # memory is measured in (`make bench`). Resident sizes would count a page's fork-started workers'
    # shared torch once each and make a page with eight workers look heavier than a compiler's page.
    peak: int = 0

    def memory_limit(self) -> tuple[int, str]:
        """The page's limit now, and where it comes from: a block's `memory=` raises it for the rest of the page."""
        limit, source = self.limits.page_memory, self.limits.page_memory_source
        for index, block in enumerate(self.job.blocks[: self.last + 1]):
            if block.memory and block.memory > limit:
                limit, source = block.memory, f'memory="{_size(block.memory)}" on block {index + 1}'
        return limit, source


def default_timeout(settings: switches.Settings | None = None) -> float:
    settings = settings or switches.read()
    return settings.block_timeout or DEFAULT_TIMEOUT


def block_timeout(options: dict[str, str], settings: switches.Settings | None = None) -> float:
    return seconds(options["timeout"], "timeout") if options.get("timeout") else default_timeout(settings)


def _size(size: int) -> str:
    return f"{size / 2**30:.3g} GiB" if size >= 2**30 else f"{size / 2**20:.3g} MiB"


def block_memory(options: dict[str, str]) -> int | None:
    """A block's `memory=` fence option, in bytes."""
    return parse_size(options["memory"], "memory") if options.get("memory") else None


def available_memory() -> int:
    """What the machine can still give, or its memory cgroup (a container's limit) where that is less."""
    available = psutil.virtual_memory().available
    for limit_file, usage_file in _cgroup_memory_files():
        try:
            limit, usage = int(Path(limit_file).read_text()), int(Path(usage_file).read_text())
        except (OSError, ValueError):
            continue  # no such file, or "max": no limit
        available = min(available, max(0, limit - usage))
    return available


def _cgroup_memory_files() -> list[tuple[str, str]]:
    files = [("/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory.current")]  # cgroup v2, as a container sees it
    try:
        for line in Path("/proc/self/cgroup").read_text().splitlines():
            _, controllers, path = line.split(":", 2)
            if "memory" in controllers.split(","):  # cgroup v1
                base = f"/sys/fs/cgroup/memory{path.rstrip('/')}"
                files.append((f"{base}/memory.limit_in_bytes", f"{base}/memory.usage_in_bytes"))
    except (OSError, ValueError):
        pass
    return files


def usable_cores() -> int:
    """The cores this process may run on (`taskset`, a container's cpuset), not all the machine has:
    two pages on one allowed core would slow each other's measurements."""
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0)) or 1
    return os.cpu_count() or 1


def limits(workers: int | None = None, settings: switches.Settings | None = None) -> Limits:
    """One page per core, as many as fit in the memory the build may use; each page may hold
    `DOCS_PAGE_MEMORY`, else an equal share of that memory."""
    settings = settings or switches.read()
    usable = int(available_memory() * MEMORY_SHARE)
    cores = usable_cores()
    if page_memory := settings.page_memory:
        workers = workers or max(1, min(cores, usable // page_memory))
        return Limits(workers, page_memory, switches.PAGE_MEMORY)
    workers = workers or max(1, min(cores, usable // PAGE_MEMORY_FLOOR))
    source = (
        f"the default: {MEMORY_SHARE:.0%} of the memory available when the build started, shared by "
        f"{workers} page(s) at once; {switches.PAGE_MEMORY} sets it"
    )
    return Limits(workers, usable // workers, source)


def _read(path: str | None) -> str:
    if not path:
        return ""
    try:
        with open(path, "rb") as capture:
            return capture.read(MAX_OUTPUT_BYTES).decode("utf-8", errors="replace")
    except OSError:
        return ""


def _output_size(path: str | None) -> int:
    try:
        return os.stat(path).st_size if path else 0
    except OSError:
        return 0


def _describe_exit(code: int | None) -> tuple[Status, str]:
    if code is not None and code < 0:
        try:
            name = signal.Signals(-code).name
        except ValueError:
            name = f"signal {-code}"
        return Status.CRASHED, f"the page process crashed ({name}) during this block"
    return Status.EXITED, f"the page process exited with code {code} during this block (os._exit or a fatal error)"


@functools.cache
def interpreter_search_path() -> tuple[str, ...]:
    """The module search path of this interpreter, without the directory it was launched from.

    `sys.path[0]` is the working directory under `python -m`, the `bin/` directory under a
    console script (`mkdocs`, `mike`, `pytest`), and pytest inserts its own. torch prints module
    paths relative to the first `sys.path` entry holding them (its log lines), so a page
    process must not inherit any of these: it sees what `python -c` sees, minus `''`.
    Entries are resolved because torch resolves the module's path before comparing (a
    symlinked environment would otherwise print absolute paths). An entry that holds a
    site-packages directory (a checkout on PYTHONPATH with its environment inside) goes
    after it, for the same reason."""
    probe = [sys.executable, "-c", "import json, site, sys; print(json.dumps([sys.path[1:], site.getsitepackages()]))"]
    entries, site_dirs = json.loads(subprocess.run(probe, check=True, capture_output=True, text=True).stdout)
    resolved = [os.path.realpath(entry) for entry in entries]
    site_dirs = [os.path.realpath(directory) for directory in site_dirs]

    def holds_site_packages(entry: str) -> bool:
        return any(directory != entry and directory.startswith(entry.rstrip("/") + "/") for directory in site_dirs)

    return tuple(
        [entry for entry in resolved if not holds_site_packages(entry)]
        + [entry for entry in resolved if holds_site_packages(entry)]
    )


def _start(
    starter: zygote.Zygote, job: PageJob, repo_root: Path, limits: Limits, settings: switches.Settings
) -> _Running:
    directories = _page_directories(starter.directory, job)
    ours, theirs = socket.socketpair()
    pid = starter.start_page(theirs)
    writable = [*directories.values(), *settings.page_writable]
    request = PageRequest(
        tuple(job.blocks),
        directories["capture"],
        directories["work"],
        str(repo_root),
        interpreter_search_path(),
        {name: directories[kind] for kind, name in PAGE_VARIABLES.items() if kind in directories},
        tuple(writable),
        max([limits.page_memory, *(b.memory or 0 for b in job.blocks)]),
        view=settings.read_only_tree,
    )
    with contextlib.suppress(OSError):  # a page gone already is found so when its socket is read
        protocol.write_all(ours.fileno(), protocol.encode_request(request))
    ours.setblocking(False)
    runs = [BlockRun(Status.NOT_RUN if b.run else Status.SKIPPED) for b in job.blocks]
    machine = starter.observed_machine()
    state = _Running(job, pid, ours, directories["capture"], directories["work"], runs, limits, machine)
    state.directories = [directories[kind] for kind in OWN_DIRECTORIES]
    state.view_expected = request.view and confinement.expected(settings)
    state.read_only = [str(repo_root), str(cache_root(repo_root, settings))]
    return state


# Each page's own directories, and the variables that name them to the page.
PAGE_VARIABLES = {
    "tmp": "TMPDIR",
    "matplotlib": "MPLCONFIGDIR",
    "inductor": "TORCHINDUCTOR_CACHE_DIR",
    "extensions": "TORCH_EXTENSIONS_DIR",
}


def _page_directories(build: str, job: PageJob) -> dict[str, str]:
    """The page's own directories: in the build's directory, its working directory (`page-*`), its
    capture files, its temporary files and matplotlib's configuration (with the build's font list),
    all removed when it ends; and, where the build keeps them (`pipeline.prepare_page_processes`),
    torch's compile caches of this page alone, kept from build to build: what one page compiled
    no other page reads."""
    work = tempfile.mkdtemp(prefix="page-", dir=build)
    found = {"work": work}
    for kind in OWN_DIRECTORIES[1:]:
        found[kind] = f"{work}-{kind}"
        os.mkdir(found[kind], 0o700)
    for fonts in Path(os.environ.get("MPLCONFIGDIR", "/nonexistent")).glob("fontlist-*.json"):
        shutil.copy(fonts, found["matplotlib"])
    for kind, directory in compile_caches(job.page).items():
        found[kind] = str(directory)
        directory.mkdir(parents=True, exist_ok=True)
    return found


OWN_DIRECTORIES = ("work", "capture", "tmp", "matplotlib")  # removed when the page ends
COMPILE_CACHES = ("inductor", "extensions")  # kept


def compile_caches(page: str) -> dict[str, Path]:
    """`page`'s own compile caches, below those the build keeps (`pipeline.prepare_page_processes`), if it does."""
    bases = {kind: os.environ.get(PAGE_VARIABLES[kind]) for kind in COMPILE_CACHES}
    return {kind: Path(base) / compile_cache_name(page) for kind, base in bases.items() if base}


def compile_cache_name(page: str) -> str:
    """The directory of `page`'s own compile caches: its path, readable, and a digest that keeps two
    pages apart whatever their names."""
    readable = re.sub(r"[^A-Za-z0-9_.-]", "_", page.removesuffix(".md"))[:80]
    return f"{readable}-{hashlib.sha256(page.encode()).hexdigest()[:8]}"


def _next_block(state: _Running) -> int | None:
    """The block the page must start next: the first that runs after the last it ended, unless that one failed."""
    if state.done and state.runs[state.done[-1]].status != Status.OK:
        return None
    after = state.done[-1] + 1 if state.done else 0
    return next((i for i in range(after, len(state.job.blocks)) if state.job.blocks[i].run), None)


def _handle(state: _Running, message: protocol.Message) -> None:
    """Take in one message of the page; a ProtocolError for one it could not have sent now
    (a block wrote to the page's socket: it may not speak for the page)."""
    blocks = state.job.blocks
    match message:
        case protocol.Confinement(view) if not state.confined:
            state.confined = True
            confinements.add(view[:MAX_VIEW_CHARS])
            if state.view_expected and not confinement.verified(state.pid, state.read_only):
                raise Unconfined(view[:MAX_VIEW_CHARS])
            protocol.write_all(state.conn.fileno(), protocol.PROCEED)
        case protocol.Start(index) if state.confined and state.current is None and index == _next_block(state):
            state.current, state.started, state.last = index, time.perf_counter(), index
            state.capture = protocol.capture_file(state.capture_dir, index)
        case protocol.Figure(index, data) if (
            index == state.current and blocks[index].figure and index not in state.figures
        ):
            state.figures[index] = data
        case protocol.Done(index, status, error, spawned) if (
            index == state.current and status in protocol.PAGE_STATUSES
        ):
            _block_done(state, index, status, error, spawned)
        case protocol.Late(held) if _page_over(state) and not state.late and all(i in state.done for i, _ in held):
            state.late = True
            for index, characters in held:
                _held_back(state, index, characters)
        case protocol.Leftovers(killed) if (
            state.late and not state.leftovers and all(i in state.done for i, _ in killed)
        ):
            state.leftovers = True
            for index, command in killed:
                state.runs[index].leftovers.append(command[: protocol.MAX_COMMAND_CHARS])
        case protocol.Finished() if state.leftovers:
            state.finished = True
        case _:
            raise protocol.ProtocolError(f"a {protocol.KIND_OF[type(message)]!r} message it could not have sent then")


MAX_VIEW_CHARS = 300  # what a page says it sees, in the build's log


class Unconfined(Exception):
    """A page whose read-only view the engine cannot see, where pages get one: it does not run."""


def _page_over(state: _Running) -> bool:
    return state.confined and state.current is None and _next_block(state) is None


def _block_done(state: _Running, index: int, status: Status, error: str, spawned: list[int]) -> None:
    # Only processes of its tree are the page's: a pid it names outside it (the engine's, say) is not
    # held, nor ever killed, for it.
    below = {process.pid for process in processes.descendants(state.pid)}
    spawned = [pid for pid in spawned if pid in below]
    state.started_by.update((pid, index) for pid in spawned)
    _know(state, spawned)
    figure = ""
    if status == Status.OK and (name := state.job.blocks[index].figure):
        figure, problem = _figure(name, state.figures.pop(index, None))
        if problem:
            status, error = Status.FIGURE, problem
    seconds = time.perf_counter() - state.started
    error = error[: protocol.MAX_ERROR_CHARS]
    state.runs[index] = BlockRun(status, _read(state.capture), error, seconds, state.machine, figure=figure)
    state.done.append(index)
    state.current = None


def _figure(name: str, data: bytes | None) -> tuple[str, str]:
    """A block's figure made safe to publish here, in the build, not in the page that drew it:
    (its SVG text, "") or ("", why it cannot be shown)."""
    if data is None:
        return "", f"the page sent no figure {name!r}"
    try:
        return figures.sanitise(data), ""
    except figures.FigureError as error:
        return "", f"figure={name!r}: {error}"


def _know(state: _Running, pids: list[int]) -> None:
    """Processes a block left running, held now: if the page then crashes, they are orphans
    that the memory watch may not have seen yet, and they are killed from this list."""
    for pid in pids:
        try:
            state.known.setdefault(pid, psutil.Process(pid))
        except psutil.Error:
            pass


def _held_back(state: _Running, index: int, characters: int) -> None:
    """Threads block `index` started printed after it ended: not recorded anywhere, and the block fails."""
    run = state.runs[index]
    if run.status != Status.OK:
        return
    error = (
        f"{characters} character(s) that threads it started printed after it ended were not recorded, in this "
        "block or the one running then; join the threads before the block ends"
    )
    state.runs[index] = BlockRun(
        Status.LATE_OUTPUT, run.output, error, run.seconds, run.machine, run.leftovers, run.figure
    )


def _fail(state: _Running, status: Status, error: str) -> None:
    """Fail the running block, or, between blocks, the block that ran last."""
    index = state.current if state.current is not None else state.last
    seconds = time.perf_counter() - state.started if state.current is not None else state.runs[index].seconds
    state.runs[index] = BlockRun(
        status, _read(state.capture), error, seconds, state.machine, leftovers=state.runs[index].leftovers
    )
    state.current = None


def _record_killed(state: _Running, killed: list[processes.Killed]) -> None:
    for process in killed:
        leftovers = state.runs[state.started_by.get(process.pid, state.last)].leftovers
        if process.command not in leftovers:  # the engine and the zygote may both have ended it
            leftovers.append(process.command)


def _killpg(state: _Running) -> None:
    for kill, target in ((os.killpg, state.pid), (os.kill, state.pid)):
        try:
            kill(target, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass


def _end_page(state: _Running) -> None:
    """Kill a live page and everything it started, reporting what it started."""
    _record_killed(state, processes.end_tree(state.pid))
    _killpg(state)
    _end_group(state)


def _end_group(state: _Running) -> None:
    """What is left in the page's cgroup, where it made one (a page that ends well removes it)."""
    _record_killed(state, [k for k in cgroups.end(cgroups.page_group(state.pid)) if k.pid != state.pid])


def _stop(state: _Running, status: Status, error: str) -> None:
    """Kill a live page and everything it started; fail its block."""
    if status == Status.TIMEOUT:
        error += _where_it_was(state)
    _end_page(state)
    _fail(state, status, error)


def _where_it_was(state: _Running) -> str:
    """Where a block past its timeout was: its threads' Python stacks, which the page prints into
    the block's output on `STACK_SIGNAL`, and what the processes it started were doing."""
    before = _output_size(state.capture)
    try:
        os.kill(state.pid, page_process.STACK_SIGNAL)
    except OSError:
        return ""
    deadline, seen = time.monotonic() + STACK_SECONDS, before
    while time.monotonic() < deadline:  # until the stacks have been printed: the output grew, then stopped
        time.sleep(0.1)
        size = _output_size(state.capture)
        if size == seen > before:
            break
        seen = size
    below = processes.descendants(state.pid)
    lines = [processes.describe(process) for process in below[:MAX_DESCRIBED]]
    if len(below) > MAX_DESCRIBED:
        lines.append(f"and {len(below) - MAX_DESCRIBED} more")
    said = "; its threads' Python stacks are in its output"
    return said + ("; the processes it started were then:\n" + "\n".join(lines) if lines else "")


MAX_DESCRIBED = 20  # processes named when a block times out


def _end_orphans(state: _Running) -> None:
    """The page process died on its own: what it started was re-parented out of its tree, so
    what was last seen in the tree, and its process group, are killed."""
    _record_killed(state, processes.kill_all(list(state.known.values())))
    try:
        os.killpg(state.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def _lost(state: _Running, starter: zygote.Zygote) -> None:
    """The page's pipe closed, or its process ended, before it said it had finished."""
    code = starter.exit_code(state.pid, EXIT_SECONDS)
    if code is None:  # it runs on, deaf: a block closed the file descriptors it inherited
        _stop(state, Status.CRASHED, "the block closed the page process's socket to the build; the page was killed")
        return
    status, error = _describe_exit(code)
    if state.current is not None:
        _fail(state, status, error)
    _end_orphans(state)
    _record_killed(state, starter.orphans(state.pid, ORPHANS_SECONDS))


READ_BYTES = 1 << 20  # read of one page's socket at one look: a page that floods it does not starve the watch


def _received(state: _Running) -> tuple[list[bytes], bool]:
    """The frames the page has completed since the last look, and whether its socket has closed."""
    data, closed = b"", False
    while len(data) < protocol.MAX_FRAME_BYTES + READ_BYTES:
        try:
            chunk = state.conn.recv(READ_BYTES)
        except BlockingIOError:
            break
        except OSError:  # reset: the page went with bytes unread
            closed = True
            break
        if not chunk:
            closed = True
            break
        data += chunk
    return state.frames.feed(data), closed


def _ended(state: _Running, starter: zygote.Zygote) -> bool:
    """Read what the page has sent; True once it has ended (and its last block is settled)."""
    try:
        payloads, closed = _received(state)
        for payload in payloads:
            _handle(state, protocol.decode(payload))
            if state.finished:
                return True
        if state.frames.broken:
            raise state.frames.broken
    except Unconfined as view:
        _stop(
            state,
            Status.CRASHED,
            f"the page could not be given its read-only view, as every page here is (it said: {view}); it did not run",
        )
        return True
    except protocol.ProtocolError as error:
        _stop(
            state,
            Status.FORGED,
            f"the page process sent the build {error}: a block may not speak for its page (it wrote to the page's "
            "socket to the build); the page was killed",
        )
        return True
    if closed:
        _lost(state, starter)
        return True
    if state.pid in starter.exit_codes:  # gone, though a process it started holds its pipe open
        _lost(state, starter)
        return True
    return False


def _overstepped(state: _Running, now: float, shm: shared_memory.Watch) -> tuple[Status, str] | None:
    """A limit the page is past: its block's time, its block's output, or its memory."""
    if state.current is not None:
        timeout = state.job.blocks[state.current].timeout
        if now - state.started > timeout:
            return Status.TIMEOUT, f"the block ran past its timeout of {timeout:g} s and was killed"
        if _output_size(state.capture) > MAX_OUTPUT_BYTES:
            return Status.OUTPUT, page_process.too_much_output() + "; it was killed"
    if now < state.next_watch:
        return None
    state.next_watch = now + WATCH_SECONDS
    memory, below = processes.tree_memory(state.pid)
    state.known.update((process.pid, process) for process in below)
    limit, source = state.memory_limit()
    own = shared_memory.page_bytes(state.pid)
    files = shm.grown() if own is None else own  # what it keeps in /dev/shm is memory too
    if memory + files > limit or now >= state.next_peak_watch:  # resident memory counts what they share once each
        memory = processes.proportional_memory(state.pid, below)
        state.peak = max(state.peak, memory + files)
        state.next_peak_watch = now + PEAK_WATCH_SECONDS
    if memory + files > limit:
        held = f"{_size(memory + files)} of memory (" + (f"{_size(files)} of it in /dev/shm; " if files else "")
        return Status.MEMORY, (
            f"its processes held {held}their proportional set size: memory they share "
            f"counted once), past the page's limit of {_size(limit)} ({source}), and were killed; a block "
            'that needs more can raise it with memory="..." on its fence'
        )
    return None


def next_to_start(pending: list[PageJob], running: list[str], peaks: dict[str, int]) -> int | None:
    """Which pending page may start beside the running ones (its index), by the peaks pages reached
    last time: the first whose peak, with theirs, stays within PEAK_SHARE of the heaviest page's.
    A page with no peak measured counts as none; with nothing running, any page may start."""
    if not pending:
        return None
    if not running:
        return 0
    budget = PEAK_SHARE * max(peaks.values(), default=0)
    held = sum(peaks.get(page, 0) for page in running)
    return next((index for index, job in enumerate(pending) if held + peaks.get(job.page, 0) <= budget), None)


def run_pages(
    jobs: list[PageJob],
    repo_root: Path,
    workers: int | None = None,
    on_done=None,
    peaks: dict[str, int] | None = None,
    settings: switches.Settings | None = None,
) -> dict[str, list[BlockRun]]:
    """Run every page of `jobs`, at most `workers` at once and within the memory `peaks` (page ->
    bytes, measured before) foresee; return each page's block runs, in block order. `on_done(page,
    runs, peak)` is told of each page as it ends, with the peak measured now. However this ends
    (Ctrl-C included), no page it started, nor anything a page started, is left running, nor any
    file it kept in /dev/shm."""
    settings = settings or switches.read()
    plan = limits(workers, settings)
    starter = zygote.zygote(settings)
    shm = shared_memory.Watch()
    was_dumpable = processes.dumpable(False)  # no page reads the build's environment, or traces it, meanwhile
    pending = list(jobs)
    running: dict[object, _Running] = {}
    results: dict[str, list[BlockRun]] = {}
    try:
        while pending or running:
            while len(running) < plan.workers:
                index = next_to_start(pending, [state.job.page for state in running.values()], peaks or {})
                if index is None:
                    break
                job = pending.pop(index)
                try:
                    state = _start(starter, job, repo_root, plan, settings)
                except zygote.ZygoteLost:  # the page did not start: it starts again, with a zygote that answers
                    pending.insert(0, job)
                    starter = _starter_lost(starter, running, results, on_done)
                    break
                running[state.conn] = state
            if starter.socket in wait([*running, starter.socket], timeout=WATCH_SECONDS):
                starter.poll()
            if not starter.alive() or starter.stopped():
                starter = _starter_lost(starter, running, results, on_done)
                continue
            now = time.perf_counter()
            for state in list(running.values()):
                if _ended(state, starter):
                    _finish(state, starter, running, results, on_done)
                elif problem := _overstepped(state, now, shm):
                    _stop(state, *problem)
                    _finish(state, starter, running, results, on_done)
    finally:
        for state in running.values():  # only when interrupted
            _end_page(state)
            _remove_directories(state)
        shm.clean()
        processes.dumpable(was_dumpable)
    return results


def _starter_lost(starter: zygote.Zygote, running: dict, results: dict, on_done) -> zygote.Zygote:
    """The zygote was stopped (a page may signal it) or died: every page running fails, as any of them may
    have done it, and the build goes on with a zygote that answers."""
    what = "was stopped (SIGSTOP)" if starter.alive() else "died"
    if not running and not starter.started:
        raise RuntimeError(f"the build's page starter (handbook.execution.zygote) {what} before it started a page")
    starter.resume()  # so that it reports how the pages it forked ended
    for state in list(running.values()):
        _stop(
            state,
            Status.CRASHED,
            f"the build's page starter (its zygote) {what} while this page ran: a page may not signal the build's "
            "processes (this page, or one running beside it, did)",
        )
        _finish(state, starter, running, results, on_done)
    return zygote.zygote(starter.settings)


def _finish(state: _Running, starter: zygote.Zygote, running: dict, results: dict, on_done) -> None:
    running.pop(state.conn, None)
    state.conn.close()
    if starter.exit_code(state.pid, EXIT_SECONDS) is None:
        _end_page(state)
        starter.exit_code(state.pid, EXIT_SECONDS)
    _end_group(state)
    _remove_directories(state)
    results[state.job.page] = state.runs
    if on_done:
        on_done(state.job.page, state.runs, state.peak)


def _remove_directories(state: _Running) -> None:
    """The page's own directories (capture files, working directory, temporary files), whatever a block
    left in them (a directory it made unreadable included); its compile caches are kept."""
    for directory in state.directories:
        shutil.rmtree(directory, **{_RMTREE_HANDLER: _unlock_and_retry})


_RMTREE_HANDLER = "onexc" if sys.version_info >= (3, 12) else "onerror"  # renamed in 3.12


def _unlock_and_retry(function, path: str, _error) -> None:
    try:
        os.chmod(os.path.dirname(path), 0o700)
        os.chmod(path, 0o700)
        function(path)
    except OSError:
        pass  # gone already, or not ours to remove


PROBE = """
import json, platform, torch
device = "cpu"
if torch.cuda.is_available():
    device = "cuda: " + torch.cuda.get_device_name(0)
print(json.dumps({"torch": torch.__version__, "git_version": torch.version.git_version,
                  "python": platform.python_version(), "device": device}))
"""


def probe_environment(repo_root: Path) -> dict[str, str]:
    """What the page processes run on: torch version and commit, Python, device."""
    result = run_pages(
        [PageJob("<probe>", [BlockJob(PROBE, "handbook/execution/runner.py", 1, 60.0)])], repo_root, workers=1
    )
    run = result["<probe>"][0]
    if run.status != Status.OK:
        raise RuntimeError(f"cannot start a page process: {run.error or run.status}\n{run.output}")
    return json.loads(run.output.strip().splitlines()[-1])
