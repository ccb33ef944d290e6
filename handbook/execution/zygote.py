"""The build's page starter: one process that has imported torch, and forks a page for the engine only.

It is started by the engine with one end of an anonymous socket pair and nothing
else to listen on: no name, no address, so no other process (a page among them)
can ask it for a process. Before any page, it tells the engine the machine pages run
on (`this_machine`, observed in a child in the state every page starts in): the
engine's observation, never a page's word. Each request carries the page's end of its
socket to the engine (`socket.send_fds`); the zygote forks, the child closes the
zygote's socket at once, reads its `protocol.PageRequest` and runs the page
(`page_process.run_page`), and the zygote answers with the page's pid, and later with
its exit code. Pages die with the zygote
(PR_SET_PDEATHSIG); when the engine goes, even killed, the socket reads end of
file, and the zygote ends every page it started, with their trees and cgroups,
removes the build's directory, and exits. It runs in a process group of its own, so
that a signal to the engine's group (a CI step killed) leaves it to do so.

The build's directory (`handbook-build-*` in the system's temporary directory) holds
every page's own directories and temporary files; it is locked while its build runs,
and a build finds and removes those of builds that were killed before they could.
A page may signal the zygote as it may any process of its user: the engine watches it
(`Zygote.stopped`), and a zygote that was stopped or killed fails the pages that were
running, not the build's wait.
"""

from __future__ import annotations

import atexit
import contextlib
import dataclasses
import fcntl
import json
import os
import platform
import select
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import traceback
from pathlib import Path

import psutil

from handbook import switches
from handbook.environment import Machine, temporary_base
from handbook.execution import cgroups, page_settings, processes

REQUEST = b"page"


def main(fd: int, lock: int, directory: str) -> None:
    """The zygote's loop: fork a page per request, report each page's exit, until the engine goes;
    `lock` holds the build's `directory` (removed at the end)."""
    import handbook.execution.preload  # noqa: F401  (torch, once, before any page is forked)

    processes.become_subreaper()  # what a page that dies leaves running comes here, to be ended
    processes.undumpable()  # no page can trace it, nor read its memory or its descriptors

    engine = socket.socket(fileno=fd)
    _send(engine, ["machine", _observed_machine()])
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the engine's to handle: it ends the pages
    wake_read, wake_write = os.pipe()
    os.set_blocking(wake_write, False)
    signal.set_wakeup_fd(wake_write)
    signal.signal(signal.SIGCHLD, lambda *_: None)
    pages: set[int] = set()
    started: list[int] = []
    while True:
        ready, _, _ = select.select([engine, wake_read], [], [])
        if wake_read in ready:
            os.read(wake_read, 4096)
        _report_exits(engine, pages)
        if engine in ready:
            try:
                message, fds, _, _ = socket.recv_fds(engine, len(REQUEST), 1)
            except OSError:  # ECONNRESET: the engine went with a message unread
                message, fds = b"", []
            if not message or not fds:
                break  # the engine is gone
            pid = _fork_page(fds[0], [engine.fileno(), wake_read, wake_write, lock])
            os.close(fds[0])
            pages.add(pid)
            started.append(pid)
            _send(engine, ["started", pid])
    for pid in pages:
        processes.end_tree(pid)
        with contextlib.suppress(OSError):
            os.killpg(pid, signal.SIGKILL)
    _end_orphans(set())  # and what they and earlier pages left: nothing outlives the zygote
    for pid in started:  # where the engine could not: it was killed
        cgroups.end(cgroups.page_group(pid))
    shutil.rmtree(directory, ignore_errors=True)
    os._exit(0)


def this_machine() -> dict:
    """The machine pages run on (`handbook.environment.Machine`, as a dict for the engine and the cache)."""
    import torch

    cpu = ""
    try:
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as cpuinfo:
            cpu = next((line.split(":", 1)[1].strip() for line in cpuinfo if line.startswith("model name")), "")
    except OSError:
        pass
    if not cpu and sys.platform == "darwin":
        cpu = os.popen("sysctl -n machdep.cpu.brand_string").read().strip()
    return {
        "cpu": cpu or platform.processor() or "unknown CPU",
        "arch": platform.machine(),
        "capability": torch.backends.cpu.get_cpu_capability(),
        "threads": torch.get_num_threads(),
    }


def _observed_machine() -> dict:
    """`this_machine` as a page sees it (in the state every page starts in: one intra-op thread),
    observed in a child so that the zygote's own state stays as its pages need it."""
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:
        try:
            os.close(read)
            from handbook.execution.page_state import PAGE_STATE

            exec(compile(PAGE_STATE, "<page state>", "exec"), {})
            os.write(write, json.dumps(this_machine()).encode())
        finally:
            os._exit(0)
    os.close(write)
    with os.fdopen(read, "rb") as answer:
        data = answer.read()
    os.waitpid(pid, 0)
    return json.loads(data)


def _send(engine: socket.socket, message: list) -> None:
    with contextlib.suppress(OSError):
        engine.send(json.dumps(message).encode())


def _report_exits(engine: socket.socket, pages: set[int]) -> None:
    for pid in list(pages):
        try:
            done, status = os.waitpid(pid, os.WNOHANG)
        except ChildProcessError:
            done, status = pid, 0
        if done:
            pages.discard(pid)
            _send(engine, ["exited", pid, os.waitstatus_to_exitcode(status)])  # first: ending orphans takes time
            killed = [[process.pid, process.command[:MAX_COMMAND]] for process in _end_orphans(pages)]
            _send(engine, ["orphans", pid, killed[:MAX_ORPHANS]])


MAX_COMMAND, MAX_ORPHANS = 1000, 100  # what one message names: it fits MESSAGE_BYTES
MESSAGE_BYTES = 1 << 20
CLOSE_SECONDS = 5.0  # how long the zygote may take to end its pages and exit once the engine has gone


def _end_orphans(pages: set[int]) -> list[processes.Killed]:
    """End what pages that died left running: re-parented here, they are the zygote's children
    that are not pages. Ended with their trees, and collected."""
    try:
        orphans = [child for child in psutil.Process().children() if child.pid not in pages]
    except psutil.Error:
        return []
    live = [orphan for orphan in orphans if processes.alive(orphan)]
    killed = []
    for orphan in live:
        killed += processes.end_descendants(orphan.pid)
    killed += processes.kill_all(live)
    for orphan in orphans:  # collected if dead: never waited for, so that no process can hold the zygote
        with contextlib.suppress(ChildProcessError):
            os.waitpid(orphan.pid, os.WNOHANG)
    return killed


def _fork_page(page_fd: int, zygote_fds: list[int]) -> int:
    zygote = os.getpid()
    pid = os.fork()
    if pid:
        return pid
    try:  # the page: nothing of the zygote's stays open in it
        signal.set_wakeup_fd(-1)
        for fd in zygote_fds:
            os.close(fd)
        signal.signal(signal.SIGCHLD, signal.SIG_DFL)
        signal.signal(signal.SIGINT, signal.default_int_handler)
        processes.dumpable(True)  # the zygote is not, for pages; the engine reads each page's memory (a user's own)
        processes.die_with_parent(zygote)
        from handbook.execution import page_process, protocol

        os.set_inheritable(page_fd, False)  # a program the page runs does not hold the engine's socket
        page_process.run_page(page_fd, protocol.decode_request(protocol.read_frame(page_fd)))
    except BaseException:
        with contextlib.suppress(BaseException):  # nothing may carry the page on into the zygote's loop
            traceback.print_exc()
    finally:
        os._exit(1)


BUILD_PREFIX = "handbook-build-"
# What pages inherit of the build's environment: its settings (those the pipeline gives every page
# among them, `page_settings`), never its secrets (a token a CI step holds). Names, and prefixes of
# names; `HANDBOOK_PAGE_VARIABLES` adds names (tests).
INHERITED = {
    "PATH", "HOME", "USER", "LOGNAME", "SHELL", "LANG", "LANGUAGE", "TZ", "TERM", "LD_LIBRARY_PATH",
    "PYTHONPATH", "PYTHONUNBUFFERED", "PYTHONWARNINGS", "PYTHONDONTWRITEBYTECODE",
    "CC", "CXX", "CFLAGS", "CXXFLAGS", "LDFLAGS", "MAX_JOBS", "CUDA_HOME", "CUDA_VISIBLE_DEVICES",
    "NO_MKDOCS_2_WARNING", *switches.ALL, *page_settings.NAMES,
}  # fmt: skip
INHERITED_PREFIXES = ("TORCH_", "TORCHINDUCTOR_", "TORCHDYNAMO_", "ATEN_", "OMP_", "MKL_", "KMP_", "LC_", "NCCL_")


def inherited_environment(directory: str, settings: switches.Settings | None = None) -> dict[str, str]:
    """The environment of the zygote, and so of every page: the build's settings, its temporary
    directory the build's own."""
    names = INHERITED | set((settings or switches.read()).page_variables)
    kept = {k: v for k, v in os.environ.items() if k in names or k.startswith(INHERITED_PREFIXES)}
    return {**kept, "TMPDIR": directory}


def remove_stale_builds() -> None:
    """The directories of builds that were killed before they could remove them (no one holds their lock)."""
    for directory in Path(temporary_base()).glob(f"{BUILD_PREFIX}*"):
        if directory.name.startswith(f"{BUILD_PREFIX}making-"):
            continue
        try:
            fd = os.open(directory / LOCK, os.O_RDONLY)
        except OSError:
            continue  # being made, or not one of ours
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            continue  # its build runs
        finally:
            os.close(fd)
        shutil.rmtree(directory, ignore_errors=True)


LOCK = ".lock"


def _locked_directory() -> tuple[str, int]:
    """A new build directory, and its lock, held (by this process and the zygote: the build runs). Made
    under another name, and given its own once locked, so that no build finds it unlocked."""
    making = tempfile.mkdtemp(prefix=f"{BUILD_PREFIX}making-", dir=temporary_base())
    lock = os.open(Path(making) / LOCK, os.O_RDWR | os.O_CREAT, 0o600)
    fcntl.flock(lock, fcntl.LOCK_EX)
    directory = making.replace(f"{BUILD_PREFIX}making-", BUILD_PREFIX, 1)
    os.rename(making, directory)
    return directory, lock


WATCH_SECONDS = 0.5  # how often a wait on the zygote looks whether it was stopped


class Zygote:
    """The engine's side: starts the zygote, asks it for pages, and learns how they ended."""

    def __init__(self, settings: switches.Settings | None = None) -> None:
        self.settings = settings or switches.read()  # the build's, read at its entry
        remove_stale_builds()
        cgroups.remove_stale()
        self.directory, self.lock = _locked_directory()
        self.socket, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        start = f"from handbook.execution.zygote import main; main({theirs.fileno()}, {self.lock}, {self.directory!r})"
        code = f"import sys; sys.path[:] = {sys.path!r}; {start}"  # the engine's path: its handbook
        self.process = subprocess.Popen(
            [sys.executable, "-c", code],
            pass_fds=[theirs.fileno(), self.lock],
            stdin=subprocess.DEVNULL,
            env=inherited_environment(self.directory, self.settings),
            start_new_session=True,  # a signal to the engine's process group leaves it to end the pages
        )
        theirs.close()
        self.dead = False
        self.started = 0  # pages it started
        self.exit_codes: dict[int, int] = {}
        self.machine: dict | None = None  # what pages run on, as the zygote observed it before any page
        # Per page that ended: what it left running that the zygote ended.
        self.orphans_killed: dict[int, list[processes.Killed]] = {}

    def alive(self) -> bool:
        return not self.dead and self.process.poll() is None

    def stopped(self) -> bool:
        """Whether a signal stopped the zygote (a page may send it one): it forks and answers nothing then."""
        try:
            return psutil.Process(self.process.pid).status() in {psutil.STATUS_STOPPED, psutil.STATUS_TRACING_STOP}
        except psutil.Error:
            return False

    def resume(self) -> None:
        with contextlib.suppress(OSError):
            os.kill(self.process.pid, signal.SIGCONT)

    def observed_machine(self) -> dict:
        """The machine pages run on, as the zygote observed it (waiting for its word, the first it sends)."""
        while self.machine is None:
            if self._receive(WATCH_SECONDS) is None and not self.alive():
                raise ZygoteLost("the build's page starter (handbook.execution.zygote) exited as it started")
        return self.machine

    def start_page(self, page_end: socket.socket) -> int:
        """Fork a page that talks to the engine through `page_end` (closed here); its pid.
        ZygoteLost if the zygote was stopped or died first."""
        socket.send_fds(self.socket, [REQUEST], [page_end.fileno()])
        page_end.close()
        while True:
            message = self._receive(WATCH_SECONDS)
            if message and message[0] == "started":
                self.started += 1
                return message[1]
            if message is None and (self.stopped() or not self.alive()):
                raise ZygoteLost("the build's page starter stopped answering as it was to start a page")

    def exit_code(self, pid: int, timeout: float) -> int | None:
        """The page's exit code (negative: the signal that ended it), or None if it still runs after `timeout` s."""
        deadline = time.monotonic() + timeout
        while pid not in self.exit_codes:
            left = deadline - time.monotonic()
            if left <= 0 or self._receive(left) is None:
                return None
        return self.exit_codes.pop(pid)

    def poll(self) -> None:
        """Take in what the zygote has said (pages' exit codes), without waiting."""
        while self._receive(0) is not None:
            pass

    def _receive(self, timeout: float | None) -> list | None:
        if not select.select([self.socket], [], [], timeout)[0]:
            return None
        if self.dead:
            return None
        data = self.socket.recv(MESSAGE_BYTES)
        if not data:  # it exited: what it said before is taken in, and nothing more comes
            self.dead = True
            return None
        message = json.loads(data)
        if message[0] == "machine":
            self.machine = dataclasses.asdict(Machine(**message[1]))  # its fields, checked
        elif message[0] == "exited":
            self.exit_codes[message[1]] = message[2]
        elif message[0] == "orphans":
            self.orphans_killed[message[1]] = [processes.Killed(pid, command) for pid, command in message[2]]
        return message

    def orphans(self, pid: int, timeout: float) -> list[processes.Killed]:
        """What the ended page `pid` left running that the zygote ended; [] if it has not said within `timeout` s."""
        deadline = time.monotonic() + timeout
        while pid not in self.orphans_killed:
            left = deadline - time.monotonic()
            if left <= 0 or self._receive(left) is None:
                return []
        return self.orphans_killed.pop(pid)

    def close(self) -> None:
        """The zygote reads end of file: it ends the pages it still runs, removes the build's
        directory, and exits."""
        self.socket.close()
        self.resume()
        try:
            self.process.wait(timeout=CLOSE_SECONDS)
        except subprocess.TimeoutExpired:  # held up ending what pages left: it and its tree are killed
            processes.end_tree(self.process.pid)
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.process.wait(timeout=CLOSE_SECONDS)
        shutil.rmtree(self.directory, ignore_errors=True)
        with contextlib.suppress(OSError):
            os.close(self.lock)


class ZygoteLost(RuntimeError):
    """The zygote stopped answering: a signal stopped it, or it died."""


_running: Zygote | None = None


def zygote(settings: switches.Settings | None = None) -> Zygote:
    """The build's zygote, started on first use (after `pipeline.prepare_page_processes` set the environment)
    with the build's `settings`."""
    global _running
    if _running is None or not _running.alive():
        _running = Zygote(settings)
        atexit.register(_running.close)
    return _running
