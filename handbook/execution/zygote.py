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
file, and the zygote ends every page it started, with their trees, and exits.
"""

from __future__ import annotations

import atexit
import contextlib
import dataclasses
import json
import os
import platform
import select
import signal
import socket
import subprocess
import sys
import time
import traceback

import psutil

from handbook.environment import Machine
from handbook.execution import processes

REQUEST = b"page"


def main(fd: int) -> None:
    """The zygote's loop: fork a page per request, report each page's exit, until the engine goes."""
    import handbook.execution.preload  # noqa: F401  (torch, once, before any page is forked)

    processes.become_subreaper()  # what a page that dies leaves running comes here, to be ended

    engine = socket.socket(fileno=fd)
    _send(engine, ["machine", _observed_machine()])
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the engine's to handle: it ends the pages
    wake_read, wake_write = os.pipe()
    os.set_blocking(wake_write, False)
    signal.set_wakeup_fd(wake_write)
    signal.signal(signal.SIGCHLD, lambda *_: None)
    pages: set[int] = set()
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
            pid = _fork_page(fds[0], [engine.fileno(), wake_read, wake_write])
            os.close(fds[0])
            pages.add(pid)
            _send(engine, ["started", pid])
    for pid in pages:
        processes.end_tree(pid)
        with contextlib.suppress(OSError):
            os.killpg(pid, signal.SIGKILL)
    _end_orphans(set())  # and what they and earlier pages left: nothing outlives the zygote
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
        processes.die_with_parent(zygote)
        from handbook.execution import page_process, protocol

        os.set_inheritable(page_fd, False)  # a program the page runs does not hold the engine's socket
        page_process.run_page(page_fd, protocol.decode_request(protocol.read_frame(page_fd)))
    except BaseException:
        with contextlib.suppress(BaseException):  # nothing may carry the page on into the zygote's loop
            traceback.print_exc()
    finally:
        os._exit(1)


class Zygote:
    """The engine's side: starts the zygote, asks it for pages, and learns how they ended."""

    def __init__(self) -> None:
        self.socket, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        start = f"from handbook.execution.zygote import main; main({theirs.fileno()})"
        code = f"import sys; sys.path[:] = {sys.path!r}; {start}"  # the engine's path: its handbook
        self.process = subprocess.Popen(
            [sys.executable, "-c", code], pass_fds=[theirs.fileno()], stdin=subprocess.DEVNULL
        )
        theirs.close()
        self.exit_codes: dict[int, int] = {}
        self.machine: dict | None = None  # what pages run on, as the zygote observed it before any page
        # Per page that ended: what it left running that the zygote ended.
        self.orphans_killed: dict[int, list[processes.Killed]] = {}

    def alive(self) -> bool:
        return self.process.poll() is None

    def observed_machine(self) -> dict:
        """The machine pages run on, as the zygote observed it (waiting for its word, the first it sends)."""
        while self.machine is None:
            self._receive(None)
        return self.machine

    def start_page(self, page_end: socket.socket) -> int:
        """Fork a page that talks to the engine through `page_end` (closed here); its pid."""
        socket.send_fds(self.socket, [REQUEST], [page_end.fileno()])
        page_end.close()
        while True:
            message = self._receive(None)
            if message and message[0] == "started":
                return message[1]

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
        data = self.socket.recv(MESSAGE_BYTES)
        if not data:
            raise RuntimeError("the build's page starter (handbook.execution.zygote) exited; see its error above")
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
        """The zygote reads end of file: it ends the pages it still runs, and exits."""
        self.socket.close()
        try:
            self.process.wait(timeout=CLOSE_SECONDS)
        except subprocess.TimeoutExpired:  # held up ending what pages left: it and its tree are killed
            processes.end_tree(self.process.pid)
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.process.wait(timeout=CLOSE_SECONDS)


_running: Zygote | None = None


def zygote() -> Zygote:
    """The build's zygote, started on first use (after `pipeline.prepare_page_processes` set the environment)."""
    global _running
    if _running is None or not _running.alive():
        _running = Zygote()
        atexit.register(_running.close)
    return _running
