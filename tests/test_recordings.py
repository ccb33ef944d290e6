from pathlib import Path

from handbook.blocks import Block, Page
from handbook.environment import release_of
from handbook.recordings import Recordings, unified_diff


def block(page="ch.md", id_="b", **options):
    return Block(page, 1, id_, "print(1)", "docs/ch.md", 3, 2, options=options)


def test_release_drops_the_local_build_tag():
    assert release_of("2.13.0+cpu") == release_of("2.13.0") == "2.13.0"


def test_paths_are_per_release_and_per_page(tmp_path: Path):
    recordings = Recordings(tmp_path, "2.13.0")
    assert recordings.relative(recordings.path(block())) == "recordings/torch-2.13.0/ch/b.txt"
    assert recordings.relative(recordings.path(block(device="cuda"))) == "recordings/torch-2.13.0/ch/b.cuda.txt"


def test_gpu_recording_keeps_its_provenance(tmp_path: Path):
    recordings = Recordings(tmp_path, "2.13.0")
    gpu = block(device="cuda")
    recordings.write(gpu, "42", {"device": "NVIDIA H200", "torch": "2.13.0+cu130", "recorded": "2026-11-29"})
    recorded = recordings.read_gpu(gpu)
    assert (recorded.device, recorded.torch, recorded.date, recorded.output) == ("NVIDIA H200", "2.13.0+cu130", "2026-11-29", "42")


def test_stale_recordings_are_those_without_a_block(tmp_path: Path):
    recordings = Recordings(tmp_path, "2.13.0")
    kept, gone = block(id_="kept"), block(id_="gone")
    recordings.write(kept, "1")
    recordings.write(gone, "2")
    assert recordings.stale([Page("ch.md", (kept,))]) == [recordings.path(gone)]
    recordings.remove(recordings.path(gone))
    assert recordings.all_files() == [recordings.path(kept)]


def test_diff_is_unified_and_names_the_recording():
    diff = unified_diff("a\nb", "a\nc", "rec.txt")
    assert "--- rec.txt (recorded)" in diff and "-b" in diff and "+c" in diff
