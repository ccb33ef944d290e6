"""The inside of one page's process: runs its blocks in order, in one namespace.

This module runs in a child forked by the build's zygote, which has already imported
torch (see `zygote.py`, `preload.py`), so a page pays no import. It is given a
`protocol.PageRequest` and reports to the engine through its socket in the messages
`protocol` defines: what it sees read-only, each block's start and end (with its figure),
what threads printed late, and what it ended when the page ended.
Output goes to the capture file at the file-descriptor level, so C++ and logging
output is caught too; the parent reads the file, which survives a crash or a kill.
"""

from __future__ import annotations

import ast
import builtins
import contextlib
import ctypes
import faulthandler
import io
import os
import resource
import signal
import stat
import sys
import tempfile
import threading
import traceback
import weakref
from pathlib import Path

from handbook import switches
from handbook.execution import cgroups, confinement, processes, protocol
from handbook.execution.figures import MAX_FIGURE_BYTES
from handbook.execution.page_state import PAGE_STATE
from handbook.execution.protocol import BlockJob, PageRequest
from handbook.execution.status import Status

THIS_FILE = os.path.abspath(__file__)
# A recorded output is meant to be read; past this, a block fails (the parent also
# kills one that goes on printing, before it fills the disk).
MAX_OUTPUT_BYTES = 64 * 2**20
# On this signal the page prints every thread's Python stack into the running block's output:
# the engine sends it before killing a block that ran past its timeout, to show where it was.
STACK_SIGNAL = signal.SIGUSR2


def _libc_flush() -> None:
    try:
        ctypes.CDLL(None).fflush(None)
    except OSError:
        pass


def _unbuffered_c_stdio() -> None:
    """C++ code writing to stdout must not sit in a buffer when a block ends."""
    try:
        libc = ctypes.CDLL(None)
        for name in ("stdout", "stderr"):
            stream = ctypes.c_void_p.in_dll(libc, name)
            libc.setvbuf(stream, None, 2, 0)  # _IONBF
    except (OSError, ValueError):
        pass


def _fresh_state() -> None:
    exec(compile(PAGE_STATE, "<page state>", "exec"), {})


def compile_block(code: str, filename: str, first_line: int):
    try:
        tree = ast.parse(code, filename=filename)
    except SyntaxError as error:
        error.lineno = (error.lineno or 1) + first_line - 1
        if error.end_lineno:
            error.end_lineno += first_line - 1
        error.filename = filename
        raise
    ast.increment_lineno(tree, first_line - 1)
    # dont_inherit: a block runs under its own __future__ imports only, as in `python file.py` or a
    # notebook, not under this module's `annotations` (which left every annotation unevaluated).
    return compile(tree, filename, "exec", dont_inherit=True)


def format_failure(error: BaseException) -> str:
    trace = traceback.TracebackException.from_exception(error)
    trace.stack = traceback.StackSummary.from_list([f for f in trace.stack if f.filename != THIS_FILE])
    return "".join(trace.format()).rstrip()


def too_much_output() -> str:
    limit = MAX_OUTPUT_BYTES // 2**20
    return f"the block printed more than {limit} MiB, the most a block may print"


class LateOutput:
    """Which block started each thread, so that what a thread prints after its block ended is held
    back rather than recorded as the output of the block running then (Python's sys.stdout and
    sys.stderr only: a thread writing to fd 1 or 2 itself cannot be told apart)."""

    def __init__(self) -> None:
        self.owners: weakref.WeakKeyDictionary[threading.Thread, int] = weakref.WeakKeyDictionary()
        self.current: int | None = None
        self.before: set[threading.Thread] = set()
        self.held: dict[int, int] = {}  # block -> characters its threads printed after it ended

    def block_started(self, index: int) -> None:
        self.current, self.before = index, set(threading.enumerate())

    def block_ended(self, index: int) -> None:
        for thread in threading.enumerate():
            if thread not in self.before:
                self.owners.setdefault(thread, index)
        self.current = None

    def holds(self, text: str) -> bool:
        """True if `text` is a late write (then it is counted, not written)."""
        owner = self.owners.get(threading.current_thread())
        if owner is None or owner == self.current:
            return False
        self.held[owner] = self.held.get(owner, 0) + len(text)
        return True


class _RoutedStream(io.TextIOWrapper):
    late: LateOutput

    def write(self, text: str) -> int:
        return len(text) if self.late.holds(text) else super().write(text)


def _python_streams(late: LateOutput) -> None:
    """Unbuffered text streams on fds 1 and 2 keep stdout and stderr in order."""
    _RoutedStream.late = late
    sys.stdout, sys.stderr = (
        _RoutedStream(open(fd, "wb", buffering=0, closefd=False), "utf-8", "replace", write_through=True)
        for fd in (1, 2)
    )


def _run_block(block: BlockJob, namespace: dict, repo_root: str) -> tuple[Status, str]:
    try:
        exec(compile_block(block.code, os.path.join(repo_root, block.file), block.line), namespace)
    except SystemExit as exit_:
        return Status.EXIT, f"the block called sys.exit({exit_.code!r})"
    except BaseException as failure:  # every failure is reported, none is fatal here
        return Status.RAISED, format_failure(failure)
    return Status.OK, ""


NO_FOLLOW_NO_WAIT = os.O_NOFOLLOW | os.O_NONBLOCK


def _read_figure(name: str) -> tuple[bytes | None, str]:
    """The figure file a block saved into the working directory: (its bytes, "") or (None, why not)."""
    try:
        with open(
            name, "rb", opener=lambda path, flags: os.open(path, flags | os.O_NOFOLLOW | os.O_NONBLOCK)
        ) as figure:
            if not stat.S_ISREG(os.fstat(figure.fileno()).st_mode):
                return None, f"the figure {name!r} is not a file"
            data = figure.read(MAX_FIGURE_BYTES + 1)
    except FileNotFoundError:
        return None, (
            f"the block declares figure={name!r} but did not save it: save it into the working directory "
            f'as a reader would, fig.savefig("{name}")'
        )
    except OSError as error:
        return None, f"the figure {name!r} cannot be read: {error.strerror} (a figure is a plain file, not a link)"
    if len(data) > MAX_FIGURE_BYTES:
        return None, f"the figure {name!r} holds more than {MAX_FIGURE_BYTES // 2**20} MiB, the most a figure may"
    return data, ""


def _capture_into(path: Path) -> None:
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    os.dup2(fd, 1)
    os.dup2(fd, 2)
    os.close(fd)


def _out_of_descriptors(error: OSError, engine: int) -> str:
    """The block holds every file descriptor the page may open: free them (the page ends
    after this block) so that the page can still end what the block started, and say so."""
    os.closerange(3, engine)
    os.closerange(engine + 1, resource.getrlimit(resource.RLIMIT_NOFILE)[0])
    return (
        f"the block left the page process no free file descriptor ({error.strerror}), so the page could not go on; "
        "a block must close the files it opens (`with open(...)`)"
    )


def _confine(request: PageRequest, settings: switches.Settings) -> str:
    """The file system read-only for this page but for its own directories, and no privilege to undo
    it (see `confinement`); what it sees, in words."""
    if not request.view:
        return confinement.unconfined()
    writable = list(request.writable)
    if group := cgroups.mount():  # its cgroup's own files: the page ends what is left in it
        writable.append(str(group))
    return confinement.confine([request.repo_root, *settings.page_read_only], writable, request.shm_bytes, settings)


def _send(engine: int, message: protocol.Message) -> None:
    protocol.write_all(engine, protocol.encode(message))


def _cut(text: str, most: int) -> str:
    return text if len(text) <= most else text[:most] + f"\n... ({len(text) - most:,} more characters)"


def run_page(engine: int, request: PageRequest) -> None:
    """Run the request's blocks in its working directory and report each to the engine through
    the socket `engine` (a file descriptor).

    `request.search_path` replaces `sys.path`: what a page prints must not depend on how the
    build was launched (see `runner.interpreter_search_path`)."""
    os.setsid()  # so that a timeout can kill the page and anything it started
    processes.become_subreaper()  # and so that what it started cannot leave its tree
    group = cgroups.join(os.getpid())  # nor, where there are cgroups, be missed by a scan of the tree
    os.environ.update(request.environment)
    tempfile.tempdir = None  # the zygote's, if it asked: this page's own from now on
    settings = switches.read()  # this process's entry: the switches it inherited from the build
    _send(engine, protocol.Confinement(_confine(request, settings)))
    protocol.read_proceed(engine)  # the engine looks at the view for itself first
    os.chdir(request.work_dir)
    sys.path[:] = request.search_path
    late = LateOutput()
    _unbuffered_c_stdio()
    _python_streams(late)
    faulthandler.register(STACK_SIGNAL, file=sys.stderr, all_threads=True)  # fd 2: the capture file
    _fresh_state()
    namespace: dict = {"__name__": "__main__", "__builtins__": builtins}
    started_by: dict[int, int] = {}  # pid -> the block after which it was first seen
    last_run = 0
    for index, block in enumerate(request.blocks):
        if not block.run:
            continue
        last_run = index
        capture = Path(protocol.capture_file(request.capture_dir, index))
        if block.figure:  # a file left by an earlier block is not this block's figure
            with contextlib.suppress(FileNotFoundError):
                os.unlink(block.figure)
        _capture_into(capture)
        _send(engine, protocol.Start(index))
        late.block_started(index)
        status, error = _run_block(block, namespace, request.repo_root)
        late.block_ended(index)
        sys.stdout.flush()
        sys.stderr.flush()
        _libc_flush()
        if status == Status.OK and os.stat(capture).st_size > MAX_OUTPUT_BYTES:
            status, error = Status.OUTPUT, too_much_output()
        if status == Status.OK and block.figure:
            figure, problem = _read_figure(block.figure)
            if figure is None:
                status, error = Status.FIGURE, problem
            else:
                _send(engine, protocol.Figure(index, figure))
        try:
            spawned = [p.pid for p in processes.descendants(os.getpid()) if p.pid not in started_by]
        except OSError as failure:  # EMFILE: psutil reads /proc through files
            status, error, spawned = Status.RAISED, _out_of_descriptors(failure, engine), []
        started_by.update((pid, index) for pid in spawned)
        _send(
            engine, protocol.Done(index, status, _cut(error, protocol.MAX_ERROR_CHARS), spawned[: protocol.MAX_LISTED])
        )
        if status != Status.OK:
            break
    # Nothing a page started outlives it: not its children, nor what left its process group.
    # A block's SIGCHLD handler (a DataLoader's raises when its workers die) must not stop that.
    signal.signal(signal.SIGCHLD, signal.SIG_DFL)
    killed = processes.end_descendants(os.getpid())
    ended = {process.pid for process in killed}
    killed += [process for process in cgroups.end(group, keep=os.getpid()) if process.pid not in ended]
    processes.reap_children()
    _send(engine, protocol.Late(list(late.held.items())[: protocol.MAX_LISTED]))
    leftovers = [(started_by.get(k.pid, last_run), k.command[: protocol.MAX_COMMAND_CHARS]) for k in killed]
    _send(engine, protocol.Leftovers(leftovers[: protocol.MAX_LISTED]))
    _send(engine, protocol.Finished())
    os.close(engine)
    # Skip interpreter teardown: atexit handlers of the page's libraries must not
    # print into a capture file after the parent has read it.
    os._exit(0)
