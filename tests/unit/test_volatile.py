from pathlib import Path

import pytest

from handbook.execution.volatile import (
    ALLOWED_FILE,
    Allowance,
    AllowListError,
    audit,
    audit_recordings,
    block_of,
    hits_in,
    read_allowed,
    recorded_hits,
)

# Synthetic data: recordings in a temporary tree

REPO = Path(__file__).resolve().parents[2]

# One line of each kind the check looks for, as a page might print it.
VOLATILE = {
    "duration": "Timed out waiting 998ms for recv operation to complete",
    "time of day": "started at 08:50:22",
    "date": "built on 2026-12-07",
    "timestamp": "ts 1764999999.25",
    "process or thread id": "worker pid 4242 ended",
    "port": "Connection closed by peer [127.0.0.1]:53812",
    "address": "data_ptr 0x7f3a1c2b",
    "temporary path": "saved to /tmp/tmpab12cd/model.pt",
    "user or host": "cache in /home/alice/.cache",
    "count of threads, workers or cores": "OS threads started: 3",
    "shared memory": "entries in /dev/shm: 4",
}


@pytest.mark.parametrize("kind", sorted(VOLATILE))
def test_each_kind_is_found(kind):
    hits = hits_in(VOLATILE[kind], "recordings/torch-2.13.0/p/b.txt", "p/b")
    assert kind in {hit.kind for hit in hits}, hits


def test_what_is_stable_is_not_a_hit():
    steady = "tensor([1., 2.]) torch.float32 stride (3, 1)\nF.silu vs silu: 3.45x (measured; claim: > 2)\n0x...\n"
    assert hits_in(steady + "<tmp>/page\nc10/core/TensorImpl.h:493\ncpu/Loops.h:312\n2s(1-s)", "f", "p/b") == []


def test_a_measured_value_is_masked_but_the_rest_of_its_line_is_read():
    hits = hits_in("time left 998ms: 998ms (measured; claim: <= 1000)", "f", "p/b")
    assert [hit.text for hit in hits] == ["998ms"]  # the label's, not the value's


def test_a_hit_names_its_file_line_and_block():
    (hit,) = hits_in(
        "fine\nTimed out waiting 997ms", "recordings/torch-2.15.0/distributed/hangs-x.txt", "distributed/hangs-x"
    )
    assert hit.describe() == (
        "recordings/torch-2.15.0/distributed/hangs-x.txt:2: duration '997ms' (block distributed/hangs-x)"
    )


def test_overlays_and_gpu_recordings_belong_to_their_block(tmp_path):
    release = tmp_path / "recordings" / "torch-2.15.0"
    assert block_of(release / "python-3.13" / "memory" / "gc-x.txt", release) == "memory/gc-x"
    assert block_of(release / "platform-macos-arm64" / "memory" / "gc-x.txt", release) == "memory/gc-x"
    assert block_of(release / "memory" / "cuda-y.cuda.txt", release) == "memory/cuda-y"


def _recordings(root: Path, files: dict[str, str], allowed: str = "") -> Path:
    for relative, text in files.items():
        path = root / "recordings" / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    (root / ALLOWED_FILE).parent.mkdir(parents=True, exist_ok=True)
    (root / ALLOWED_FILE).write_text(allowed)
    return root


def test_an_allowance_explains_a_hit_in_every_release_and_overlay(tmp_path):
    root = _recordings(
        tmp_path,
        {
            "torch-2.13.0/d/timeout.txt": "Timed out waiting 2000ms",
            "torch-2.15.0/python-3.13/d/timeout.txt": "Timed out waiting 2000ms",
            "torch-2.15.0/d/other.txt": "Timed out waiting 1999ms",
        },
        '[[stable]]\nblock = "d/timeout"\ntext = "2000ms"\nreason = "the timeout the example passes"\n',
    )
    found = audit_recordings(root)
    assert [hit.describe() for hit in found.unexplained] == [
        "recordings/torch-2.15.0/d/other.txt:1: duration '1999ms' (block d/other)"
    ]
    assert not found.unused and not found.ok
    assert "d/other" in found.report() and "list it in recordings/volatile-allowed.toml" in found.report()


def test_an_allowance_that_matches_nothing_fails(tmp_path):
    root = _recordings(
        tmp_path, {"torch-2.13.0/d/a.txt": "nothing here"}, '[[stable]]\nblock = "d/a"\ntext = "5ms"\nreason = "r"\n'
    )
    found = audit(recorded_hits(root), read_allowed(root))
    assert found.unused == [Allowance("d/a", "5ms", "r")]
    assert "matches no recording any more" in found.report()


@pytest.mark.parametrize(
    "entry",
    [
        'block = "d/a"\ntext = "5ms"\n',
        'block = "d/a"\ntext = "5ms"\nreason = ""\n',
        'block = 1\ntext = "5"\nreason = "r"\n',
    ],
)
def test_an_allowance_needs_a_block_a_text_and_a_reason(tmp_path, entry):
    root = _recordings(tmp_path, {}, "[[stable]]\n" + entry)
    with pytest.raises(AllowListError, match="entry 1: an entry has exactly block, text and reason"):
        read_allowed(root)


def test_every_recording_of_the_handbook_is_steady_or_explained():
    """The check itself, over this repository: a new duration, pid, port... in a recording fails here."""
    found = audit_recordings(REPO)
    assert found.ok, "\n" + found.report()
