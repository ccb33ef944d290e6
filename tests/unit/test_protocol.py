"""The page-process protocol: typed messages as data, every other frame refused."""

from __future__ import annotations

import json
import pickle
import struct

import pytest

from handbook.execution import protocol
from handbook.execution.protocol import (
    BlockJob,
    Confinement,
    Done,
    Figure,
    Finished,
    Late,
    Leftovers,
    PageRequest,
    ProtocolError,
    Start,
)
from handbook.execution.status import Status

MESSAGES = [
    Confinement("the tree and the build's caches read-only"),
    Start(3),
    Figure(3, b"<svg/>\x00\xff"),
    Done(3, Status.RAISED, "Traceback ...", [12, 13]),
    Late([(1, 20)]),
    Leftovers([(2, "sleep 100")]),
    Finished(),
]


def payload(frame: bytes) -> bytes:
    (size,) = struct.unpack("!I", frame[:4])
    assert len(frame) == 4 + size
    return frame[4:]


@pytest.mark.parametrize("message", MESSAGES, ids=lambda m: type(m).__name__)
def test_each_message_comes_back_as_it_was_sent(message):
    decoded = protocol.decode(payload(protocol.encode(message)))
    assert decoded == message and type(decoded) is type(message)


def test_the_request_is_typed_data_too():
    request = PageRequest(
        (BlockJob("print(1)", "docs/p.md", 3, 30.0, figure="a.svg"), BlockJob("x", "snippets/s.py", 1, 2.5, run=False)),
        "/c",
        "/w",
        "/repo",
        ("/lib",),
        {"TMPDIR": "/t"},
        ("/c", "/w"),
        2**30,
    )
    assert protocol.decode_request(payload(protocol.encode_request(request))) == request


def json_frame(data) -> bytes:
    return json.dumps(data).encode()


@pytest.mark.parametrize(
    "sent, said",
    [
        # What the engine once unpickled: an object whose unpickling runs code in the build.
        (pickle.dumps(("done", 0, "ok", "", 0.0, [])), "not JSON"),
        (json_frame(["start", 0, "/etc/passwd"]), "no message kind"),
        (json_frame({"kind": "machine", "cpu": "Apple M9", "capability": "AVX2"}), "no message kind 'machine'"),
        (json_frame({"kind": "start", "index": 0, "capture": "/etc/passwd"}), "fields"),
        (json_frame({"kind": "start"}), "fields"),
        (json_frame({"kind": "start", "index": "0"}), "start.index: not int"),
        (json_frame({"kind": "start", "index": True}), "start.index: not int"),
        (json_frame({"kind": "done", "index": 0, "status": "passed", "error": "", "spawned": []}), "not a status"),
        (json_frame({"kind": "done", "index": 0, "status": "ok", "error": "", "spawned": [1.5]}), "not int"),
        (json_frame({"kind": "figure", "index": 0, "data": "not base64!"}), "not base64"),
        (json_frame({"kind": "late", "held": [[0, 1, 2]]}), "not 2 items"),
        (json_frame({"kind": "leftovers", "killed": [[0, "x"]] * (protocol.MAX_LISTED + 1)}), "more than"),
        (b"[" * 100000, "not JSON"),
    ],
)
def test_anything_else_is_refused_saying_why(sent, said):
    with pytest.raises(ProtocolError, match=said):
        protocol.decode(sent)


def test_frames_are_read_as_they_complete_and_a_frame_too_long_is_refused_before_it_is_read():
    frames = protocol.Frames()
    whole = protocol.encode(Start(0)) + protocol.encode(Finished())
    assert frames.feed(whole[:3]) == []
    assert [protocol.decode(p) for p in frames.feed(whole[3:])] == [Start(0), Finished()]
    assert frames.feed(protocol.encode(Start(1)) + struct.pack("!I", protocol.MAX_FRAME_BYTES + 1)) == [
        payload(protocol.encode(Start(1)))
    ]
    assert "more than" in str(frames.broken) and frames.feed(protocol.encode(Start(2))) == []


def test_a_message_the_page_cannot_send_in_one_frame_is_refused_where_it_is_made():
    with pytest.raises(ProtocolError, match="more than"):
        protocol.encode(Figure(0, b"x" * protocol.MAX_FRAME_BYTES))


def test_a_page_gives_no_status_but_its_own():
    assert protocol.PAGE_STATUSES == {Status.OK, Status.RAISED, Status.EXIT, Status.OUTPUT, Status.FIGURE}
    assert not protocol.PAGE_STATUSES & {Status.CACHED, Status.SKIPPED, Status.RECORDED, Status.GPU_MISSING}
