"""The page-process protocol: every message between the engine and a page, typed, and sent as data.

A page is code from a pull request (DESIGN.md, "Safe to build"), and a block can write to
its page's socket to the engine as well as the page can. So what a page sends is parsed,
never unpickled or run, and never used as a path: each message is one frame, 4 bytes of
length (big-endian) then a JSON object `{"kind": ..., <fields>}`. A frame longer than
`MAX_FRAME_BYTES`, a kind not defined here, a field missing, extra or of another type
than its definition's is a `ProtocolError`; the engine then fails the page's block
(`runner._handle`). `bytes` fields travel as base64 text.

The engine sends one `PageRequest`; the page answers, in this order: `Confinement`, then,
once the engine has seen the view for itself and sent `Proceed`, for each block that runs
`Start`, `Figure` (a block that declares one), `Done`; then `Late`, `Leftovers` and
`Finished`. Where a block's output is captured is the engine's to say (`capture_file`),
and the machine a page runs on is observed by the zygote before any page runs: neither
is the page's word.
"""

from __future__ import annotations

import base64
import dataclasses
import json
import os
import struct
import types
import typing
from dataclasses import dataclass, fields
from typing import NamedTuple

from handbook.execution.status import Status

HEADER = struct.Struct("!I")
# The most one frame may hold: a figure (1 MiB, 4/3 of it as base64) and room for the rest.
MAX_FRAME_BYTES = 4 * 2**20
MAX_ERROR_CHARS = 256 * 1024  # a block's error as sent (a traceback is read, not archived)
MAX_COMMAND_CHARS = 1000  # one leftover process's command line
MAX_LISTED = 1000  # pids spawned by a block, leftovers, late blocks: what one message lists


class ProtocolError(ValueError):
    """A frame that is not a message of this protocol."""


@dataclass(frozen=True)
class BlockJob:
    """One block as its page process is given it."""

    code: str
    file: str  # repository-relative
    line: int
    timeout: float
    run: bool = True
    memory: int | None = None  # bytes: the page's memory limit, raised from this block on
    figure: str | None = None  # the SVG file the block saves its figure as, read after it


@dataclass(frozen=True)
class PageRequest:
    """What the engine asks of a page process: its blocks, and where it runs and writes."""

    blocks: tuple[BlockJob, ...]
    capture_dir: str  # the engine's: block i's output goes to capture_file(capture_dir, i)
    work_dir: str  # the page's working directory
    repo_root: str
    search_path: tuple[str, ...]  # sys.path (see `runner.interpreter_search_path`)
    environment: dict[str, str]  # settings of this page alone: its temporary and compile-cache directories
    writable: tuple[str, ...]  # what the page may write (the rest of the file system is read-only where it can be)
    shm_bytes: int  # the size of the page's own /dev/shm, where it gets one
    view: bool = True  # a view of its own, where the machine allows (`confinement`); False: HANDBOOK_READ_ONLY_TREE=0


class Proceed(NamedTuple):
    """The engine's word that the page may run its blocks: it has seen the page's view for itself."""


# What a page process sends.
class Confinement(NamedTuple):
    view: str  # what the page sees read-only (`confinement.confine`), for the build's log


class Start(NamedTuple):
    index: int


class Figure(NamedTuple):
    index: int
    data: bytes  # the file as the block wrote it; the engine sanitises it (`figures.sanitise`)


class Done(NamedTuple):
    index: int
    status: Status
    error: str
    spawned: list[int]  # processes first seen running after the block


class Late(NamedTuple):
    held: list[tuple[int, int]]  # (block, characters its threads printed after it ended)


class Leftovers(NamedTuple):
    killed: list[tuple[int, str]]  # (block, command line) of what the page ended when it ended


class Finished(NamedTuple):
    pass


Message = Confinement | Start | Figure | Done | Late | Leftovers | Finished
KINDS: dict[str, type] = {
    "confinement": Confinement,
    "start": Start,
    "figure": Figure,
    "done": Done,
    "late": Late,
    "leftovers": Leftovers,
    "finished": Finished,
}
KIND_OF = {kind: name for name, kind in KINDS.items()}
# The statuses a page process itself can give a block; any other (a cached run's, a recording's) is
# the engine's to give.
PAGE_STATUSES = frozenset({Status.OK, Status.RAISED, Status.EXIT, Status.OUTPUT, Status.FIGURE})


def capture_file(capture_dir: str, index: int) -> str:
    """Where block `index`'s output is captured: the engine's path, the same on both sides."""
    return os.path.join(capture_dir, f"{index}.out")


# Encoding: a typed value as JSON data, and back, checked against its annotation.


def _hints(kind: type) -> dict[str, object]:
    return typing.get_type_hints(kind)


def _to_data(value: object) -> object:
    if isinstance(value, bytes):
        return base64.b64encode(value).decode("ascii")
    if isinstance(value, Status):
        return value.value
    if isinstance(value, BlockJob):
        return {f.name: _to_data(getattr(value, f.name)) for f in fields(BlockJob)}
    if isinstance(value, list | tuple):
        return [_to_data(item) for item in value]
    if isinstance(value, dict):
        return {key: _to_data(item) for key, item in value.items()}
    return value


def _from_data(data: object, hint: object, where: str) -> object:
    """`data` as the type `hint` names; ProtocolError where it is not one."""
    origin, arguments = typing.get_origin(hint), typing.get_args(hint)
    if origin in (types.UnionType, typing.Union):
        if data is None and type(None) in arguments:
            return None
        return _from_data(data, next(a for a in arguments if a is not type(None)), where)
    if hint is bytes:
        if not isinstance(data, str):
            raise ProtocolError(f"{where}: not base64 text")
        try:
            return base64.b64decode(data, validate=True)
        except ValueError:
            raise ProtocolError(f"{where}: not base64 text") from None
    if hint is Status:
        try:
            return Status(data)
        except ValueError:
            raise ProtocolError(f"{where}: {str(data)[:40]!r} is not a status") from None
    if hint is float:
        if isinstance(data, bool) or not isinstance(data, int | float):
            raise ProtocolError(f"{where}: not a number")
        return float(data)
    if hint in (int, str, bool):
        if type(data) is not hint:
            raise ProtocolError(f"{where}: not {hint.__name__}")
        return data
    if hint is BlockJob:
        return _record(BlockJob, data, where)
    if origin in (list, tuple):
        if not isinstance(data, list):
            raise ProtocolError(f"{where}: not a list")
        if origin is tuple and arguments[-1] is not Ellipsis:
            if len(data) != len(arguments):
                raise ProtocolError(f"{where}: not {len(arguments)} items")
            return tuple(_from_data(item, kind, where) for item, kind in zip(data, arguments, strict=True))
        if len(data) > MAX_LISTED and origin is list:
            raise ProtocolError(f"{where}: more than {MAX_LISTED} items")
        items = [_from_data(item, arguments[0], where) for item in data]
        return tuple(items) if origin is tuple else items
    if origin is dict:
        if not isinstance(data, dict) or not all(isinstance(v, str) for v in data.values()):
            raise ProtocolError(f"{where}: not a mapping of text")
        return dict(data)
    raise ProtocolError(f"{where}: no rule for {hint!r}")  # a definition here the decoder does not know


def _record(kind: type, data: object, where: str):
    """A NamedTuple or dataclass `kind` from a JSON object holding exactly its fields."""
    hints = _hints(kind)
    if not isinstance(data, dict):
        raise ProtocolError(f"{where}: not an object")
    names = set(data) - {"kind"} if kind in KIND_OF else set(data)
    required = {name for name in hints if not _has_default(kind, name)}
    if not required <= names <= set(hints):
        raise ProtocolError(f"{where}: fields {sorted(names)[:10]}, expected {sorted(hints)}")
    return kind(**{name: _from_data(data[name], hints[name], f"{where}.{name}") for name in names})


def _has_default(kind: type, name: str) -> bool:
    if hasattr(kind, "_field_defaults"):
        return name in kind._field_defaults
    return next(f for f in fields(kind) if f.name == name).default is not dataclasses.MISSING


def _frame(data: object, limit: int = MAX_FRAME_BYTES) -> bytes:
    payload = json.dumps(data, separators=(",", ":")).encode()
    if len(payload) > limit:
        raise ProtocolError(f"a message of {len(payload):,} bytes, more than {limit:,}")
    return HEADER.pack(len(payload)) + payload


def encode(message: Message) -> bytes:
    """One page message as a frame."""
    return _frame({"kind": KIND_OF[type(message)], **{name: _to_data(v) for name, v in message._asdict().items()}})


def decode(payload: bytes) -> Message:
    """One frame's payload as the message it is; ProtocolError for anything else."""
    try:
        data = json.loads(payload)
    except (ValueError, RecursionError):
        raise ProtocolError("not JSON") from None
    kind = KINDS.get(data.get("kind")) if isinstance(data, dict) and isinstance(data.get("kind"), str) else None
    if kind is None:
        shown = str(data.get("kind"))[:40] if isinstance(data, dict) else type(data).__name__
        raise ProtocolError(f"no message kind {shown!r}")
    return _record(kind, data, KIND_OF[kind])


MAX_REQUEST_BYTES = 256 * 2**20  # every block of a page, with its code: the engine's own, bounded all the same


PROCEED = _frame({"kind": "proceed"})


def read_proceed(fd: int) -> None:
    """Wait for the engine's `Proceed`; EOFError where it closes the socket instead (the page is then killed)."""
    if json.loads(read_frame(fd)) != {"kind": "proceed"}:
        raise ProtocolError("not the engine's proceed")


def encode_request(request: PageRequest) -> bytes:
    return _frame({f.name: _to_data(getattr(request, f.name)) for f in fields(PageRequest)}, MAX_REQUEST_BYTES)


def decode_request(payload: bytes) -> PageRequest:
    try:
        data = json.loads(payload)
    except ValueError:
        raise ProtocolError("not JSON") from None
    return _record(PageRequest, data, "request")


class Frames:
    """The frames of a byte stream, as they complete: `feed(data)` returns the payloads that did; after a
    header no frame may have, `broken` says why, and nothing more is read."""

    def __init__(self) -> None:
        self.buffer = bytearray()
        self.broken: ProtocolError | None = None

    def feed(self, data: bytes) -> list[bytes]:
        if self.broken:
            return []
        self.buffer += data
        payloads = []
        while len(self.buffer) >= HEADER.size:
            (size,) = HEADER.unpack_from(self.buffer)
            if size > MAX_FRAME_BYTES:
                self.broken = ProtocolError(f"a frame of {size:,} bytes, more than {MAX_FRAME_BYTES:,}")
                break
            if len(self.buffer) < HEADER.size + size:
                break
            payloads.append(bytes(self.buffer[HEADER.size : HEADER.size + size]))
            del self.buffer[: HEADER.size + size]
        return payloads


def read_frame(fd: int) -> bytes:
    """One whole frame's payload from a blocking descriptor (the page reads its request so);
    EOFError where the stream ends first."""
    header = _read_exactly(fd, HEADER.size)
    (size,) = HEADER.unpack(header)
    if size > MAX_REQUEST_BYTES:
        raise ProtocolError(f"a frame of {size:,} bytes, more than {MAX_REQUEST_BYTES:,}")
    return _read_exactly(fd, size)


def _read_exactly(fd: int, size: int) -> bytes:
    chunks, left = [], size
    while left:
        chunk = os.read(fd, min(left, 1 << 20))
        if not chunk:
            raise EOFError
        chunks.append(chunk)
        left -= len(chunk)
    return b"".join(chunks)


def write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]
