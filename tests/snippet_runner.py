"""Runs snippet files as `python file.py` would, each forked from one process that has imported torch.

A fresh interpreter pays `import torch` (2 s quiet, 4-6 s under `make test`) before the file's
own work; the build starts its pages from such a process for the same reason (the zygote). The
server (this file run as a program) imports what the build's zygote imports, in the environment
the snippets run in, then forks a child per file: the file runs as its own `__main__`, in its own
process and process group, from a state that differs from a fresh interpreter only by modules
already imported. A file for which that difference could matter runs in a fresh interpreter
(`needs_fresh_interpreter`).

Protocol, over a socket pair (one JSON message a packet): the client sends {"file", "cwd"} with
the child's stdout and stderr descriptors, the server answers ["started", pid], later
["exited", pid, exit code]; {"kill": true} ends the running child's process group. The server
ends its child and exits when the client's end closes (the session ended, or its worker died).
"""

from __future__ import annotations

import ast
import json
import os
import runpy
import select
import signal
import socket
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
MESSAGE_BYTES = 1 << 16
STOP_SECONDS = 30.0  # how long a killed child, or the server at the session's end, may take to go


def needs_fresh_interpreter(file: Path) -> str | None:
    """Why `file` must run in a fresh interpreter, or None when a forked child runs it as `python file` does.

    The child starts with torch imported, so a file is forked only if torch is the first thing it
    imports: before its first top-level torch import it runs nothing but docstrings and imports, and
    each such import of the repository's own code (a sibling module, `snippets.*`) passes the same
    rule. Anything else may change what torch's import reads (os.environ: KINETO_LOG_LEVEL, say) or
    not import torch at all, and a file that never imports torch has no import to save."""
    for statement in ast.parse(file.read_text(), str(file)).body:
        if isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Constant):
            continue
        if not isinstance(statement, (ast.Import, ast.ImportFrom)):
            return f"line {statement.lineno} runs before torch is imported"
        names = [alias.name for alias in statement.names] if isinstance(statement, ast.Import) else [statement.module]
        if any(name.split(".")[0] == "torch" for name in names if name):
            return None
        if getattr(statement, "level", 0):
            return f"line {statement.lineno} is a relative import"
        for own in filter(None, (_own_module(file, name) for name in names)):
            return needs_fresh_interpreter(own) and f"line {statement.lineno} imports {own.relative_to(REPO)}"
    return "it imports no torch at its top level"


def _own_module(file: Path, name: str) -> Path | None:
    """The repository's source file that importing `name` runs, if it is one (it may run anything)."""
    candidates = [file.parent / f"{name.split('.')[0]}.py", REPO / f"{name.replace('.', '/')}.py"]
    return next((path for path in candidates if path.is_file()), None)


class SnippetRunner:
    """One pytest worker's server and its client: `run` a file in a child of it, or in a fresh interpreter."""

    def __init__(self, env: dict[str, str]) -> None:
        self.env = env
        self.socket, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        self.server = subprocess.Popen(
            [sys.executable, __file__, str(theirs.fileno())],
            pass_fds=[theirs.fileno()],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,  # a child's output goes to the files of its request
            env=env,  # before torch's import, as a fresh interpreter has it
        )
        theirs.close()

    def run(self, file: Path, cwd: Path, timeout: float) -> subprocess.CompletedProcess:
        """`python file` in `cwd`: its exit status and output. subprocess.TimeoutExpired after `timeout` s,
        the file's process group killed."""
        if needs_fresh_interpreter(file):
            return subprocess.run(
                [sys.executable, str(file)], cwd=cwd, env=self.env, capture_output=True, text=True, timeout=timeout
            )
        with tempfile.TemporaryFile() as stdout, tempfile.TemporaryFile() as stderr:
            request = json.dumps({"file": str(file), "cwd": str(cwd)}).encode()
            socket.send_fds(self.socket, [request], [stdout.fileno(), stderr.fileno()])
            pid = self._receive("started", None)
            exit_code = None
            try:
                exit_code = self._receive("exited", timeout, pid)
            finally:  # a timeout, or the test's own (pytest-timeout): the child does not outlive its test
                if exit_code is None:
                    self.socket.send(json.dumps({"kill": True}).encode())
                    self._receive("exited", STOP_SECONDS, pid)
            stdout.seek(0)
            stderr.seek(0)
            out, err = (stream.read().decode(errors="replace") for stream in (stdout, stderr))
        if exit_code is None:
            raise subprocess.TimeoutExpired([sys.executable, str(file)], timeout, out, err)
        return subprocess.CompletedProcess([sys.executable, str(file)], exit_code, out, err)

    def _receive(self, kind: str, timeout: float | None, pid: int | None = None) -> int | None:
        """What the server's next message of `kind` (about `pid`, if given) carries last: a pid or an
        exit code; None after `timeout` s."""
        while select.select([self.socket], [], [], timeout)[0]:
            data = self.socket.recv(MESSAGE_BYTES)
            if not data:
                raise RuntimeError(f"the snippet server ({__file__}) exited")
            message = json.loads(data)
            if message[0] == kind and pid in (None, message[1]):
                return message[-1]
        return None

    def close(self) -> None:
        """The server reads end of file: it ends its child, if one still runs, and exits."""
        self.socket.close()
        try:
            self.server.wait(timeout=STOP_SECONDS)
        except subprocess.TimeoutExpired:
            self.server.kill()
            self.server.wait()


# The server. Its loop has no `try`, `with` or `finally` around the fork: the child leaves it by an
# exception (SystemExit) through the interpreter's own exit, which joins threads, runs atexit
# handlers and flushes, as at the end of `python file.py`.


def serve(fd: int) -> None:
    # What the build's zygote imports (handbook/execution/preload.py), less its FileBaton patch:
    # a fresh interpreter has torch's own.
    import numpy  # noqa: F401
    import torch  # noqa: F401

    client = socket.socket(fileno=fd)
    wake_read, wake_write = os.pipe()
    os.set_blocking(wake_write, False)
    signal.set_wakeup_fd(wake_write)
    signal.signal(signal.SIGCHLD, lambda *_: None)
    child = None
    while True:
        ready = select.select([client, wake_read], [], [])[0]
        if wake_read in ready:
            os.read(wake_read, 4096)
        if child is not None and _ended(child):
            client.send(json.dumps(["exited", child, _collect(child)]).encode())
            child = None
        if client in ready:
            message, fds, _, _ = socket.recv_fds(client, MESSAGE_BYTES, 2)
            if not message:
                break  # the client is gone
            request = json.loads(message)
            if request.get("kill"):
                if child is not None:
                    os.killpg(child, signal.SIGKILL)
                continue
            child = os.fork()
            if child == 0:
                _become_the_file(request, fds, client, [wake_read, wake_write])
            for fd in fds:
                os.close(fd)
            client.send(json.dumps(["started", child]).encode())
    if child is not None:
        os.killpg(child, signal.SIGKILL)
        _collect(child)


def _ended(pid: int) -> bool:
    """Whether `pid` exited, left unreaped: its process group id stays its own until `_collect`."""
    return os.waitid(os.P_PID, pid, os.WEXITED | os.WNOHANG | os.WNOWAIT) is not None


def _collect(pid: int) -> int:
    """End what the file left running in its process group (a fresh run's would outlive the test), and reap it."""
    os.killpg(pid, signal.SIGKILL)
    return os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])


def _become_the_file(request: dict, fds: list[int], client: socket.socket, server_fds: list[int]) -> None:
    """In the child: run the file as `python file` would, in a process group of its own, then exit
    through the interpreter (SystemExit up through `serve`)."""
    os.setpgid(0, 0)  # the client's timeout ends the file with what it started
    signal.set_wakeup_fd(-1)
    signal.signal(signal.SIGCHLD, signal.SIG_DFL)
    client.close()
    for fd in server_fds:
        os.close(fd)
    for target, fd in zip((1, 2), fds, strict=True):
        os.dup2(fd, target)
        os.close(fd)
    os.chdir(request["cwd"])
    file = request["file"]
    sys.argv = [file]
    sys.path[0] = os.path.dirname(file)  # the script's directory, as `python file` puts first
    try:
        runpy.run_path(file, run_name="__main__")
    except Exception as error:  # uncaught: the traceback from the file's frames on, and exit status 1
        error.with_traceback(_from_file(error.__traceback__, file))  # what the hook prints, whatever it is given
        sys.excepthook(type(error), error, error.__traceback__)
        raise SystemExit(1) from None
    raise SystemExit(0)


def _from_file(trace, file: str):
    """`trace` without the server's and runpy's frames, as a fresh interpreter prints it."""
    while trace is not None and trace.tb_frame.f_code.co_filename != file:
        trace = trace.tb_next
    return trace


if __name__ == "__main__":
    serve(int(sys.argv[1]))
