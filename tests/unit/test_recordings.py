from pathlib import Path

import pytest

from handbook.environment import release_of
from handbook.execution.blocks import Block, Page
from handbook.execution.recordings import Recordings, recover_stage, staged, unified_diff
from handbook.tree_files import TreeError

# Synthetic data: the recordings layout under test, in a temporary tree


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
    assert (recorded.device, recorded.torch, recorded.date, recorded.output) == (
        "NVIDIA H200",
        "2.13.0+cu130",
        "2026-11-29",
        "42",
    )


def test_stale_recordings_are_those_without_a_block(tmp_path: Path):
    recordings = Recordings(tmp_path, "2.13.0")
    kept, gone = block(id_="kept"), block(id_="gone")
    recordings.write(kept, "1")
    recordings.write(gone, "2")
    assert recordings.stale([Page("ch.md", (kept,))]) == [recordings.path(gone)]
    recordings.remove(recordings.path(gone))
    assert recordings.all_files() == [recordings.path(kept)]


def test_a_figure_is_recorded_beside_its_output_and_is_stale_when_its_block_draws_none(tmp_path: Path):
    recordings = Recordings(tmp_path, "2.13.0")
    drawing = block(id_="seg", figure="seg.svg", alt="Two segments")
    assert recordings.relative(recordings.figure_path(drawing)) == "recordings/torch-2.13.0/ch/seg.svg"
    assert recordings.write_figure(drawing, "<svg/>") == recordings.figure_path(drawing)
    assert recordings.write_figure(drawing, "<svg/>\n") is None  # unchanged: nothing written
    assert recordings.read_figure(drawing) == "<svg/>"
    recordings.write(drawing, "out")
    assert recordings.stale([Page("ch.md", (drawing,))]) == []
    no_longer = block(id_="seg")  # the same block without figure=: its figure recording is stale
    assert recordings.stale([Page("ch.md", (no_longer,))]) == [recordings.figure_path(drawing)]


def test_another_python_records_a_figure_only_where_it_differs(tmp_path: Path):
    drawing = block(id_="seg", figure="seg.svg", alt="Two segments")
    Recordings(tmp_path, "2.13.0").write_figure(drawing, "<svg/>")
    other = Recordings(tmp_path, "2.13.0", python="3.13")
    assert other.write_figure(drawing, "<svg/>") is None and other.figure_path(drawing).name == "seg.svg"
    assert not (tmp_path / "recordings/torch-2.13.0/python-3.13").exists()
    written = other.write_figure(drawing, "<svg id='x'/>")
    assert other.relative(written) == "recordings/torch-2.13.0/python-3.13/ch/seg.svg"
    assert other.read_figure(drawing) == "<svg id='x'/>"
    assert Recordings(tmp_path, "2.13.0").read_figure(drawing) == "<svg/>"


def test_diff_is_unified_and_names_the_recording():
    diff = unified_diff("a\nb", "a\nc", "rec.txt")
    assert "--- rec.txt (recorded)" in diff and "-b" in diff and "+c" in diff


def test_diff_of_a_change_deep_in_a_long_output_numbers_its_lines():
    before = "\n".join(f"line {i}" for i in range(10_000))
    after = before.replace("line 7000", "line seven thousand")
    diff = unified_diff(before, after, "rec.txt").splitlines()
    assert "@@ -6998,7 +6998,7 @@" in diff
    assert "-line 7000" in diff and "+line seven thousand" in diff
    assert len(diff) == 2 + 1 + 8  # file names, one hunk: three lines of context either side of the change


def test_diff_of_one_huge_line_shows_where_it_differs():
    recorded = "x" * 5_000_000
    printed = "x" * 4_000_000 + "y" + "x" * 999_999
    diff = unified_diff(recorded, printed, "rec.txt")
    assert len(diff) < 2_000
    assert "xy" in diff and "[3,999,900 characters]…" in diff
    assert "(long lines are cut to 300 characters from column 3,999,900, near the first difference)" in diff


def test_diff_of_many_differing_lines_is_cut():
    diff = unified_diff("\n".join(map(str, range(200_000))), "\n".join(f"{i}!" for i in range(200_000)), "rec.txt")
    assert len(diff.splitlines()) < 250
    assert "(diff cut: only the first 100 of 200,000 lines from the first difference on are compared)" in diff


# Outputs that differ everywhere, in ways that make difflib's matching quadratic
# (few distinct lines, each repeated), and one line of megabytes.
ADVERSARIAL_DIFFS = [
    ("'\\n'.join(str(i % 150) for i in range(N // 4))", "'\\n'.join(str(i % 149) for i in range(N // 4))"),
    ("'\\n'.join(map(str, range(N // 8)))", "'\\n'.join(map(str, range(N // 8, 0, -1)))"),
    ("'x' * N", "'x' * (N - 1) + 'y'"),
]


def test_diff_time_is_linear_on_megabytes(timed):
    seconds = timed(f"""
        import time
        from handbook.execution.recordings import unified_diff
        N = {4 * 2**20}
        pairs = [{", ".join(f"({a}, {b})" for a, b in ADVERSARIAL_DIFFS)}]
        started = time.perf_counter()
        for recorded, printed in pairs:
            assert len(unified_diff(recorded, printed, "rec.txt")) < 50_000
        print(time.perf_counter() - started)
    """)
    assert seconds < 10


def test_staged_recordings_change_only_when_swapped_in(tmp_path: Path):
    recordings = Recordings(tmp_path, "2.13.0")
    recordings.write(block(id_="old"), "1")
    with staged(recordings) as stage:
        stage.write(block(id_="new"), "2")
        stage.remove(stage.path(block(id_="old")))
        assert stage.relative(stage.path(block(id_="new"))) == "recordings/torch-2.13.0/ch/new.txt"
        assert [p.name for p in recordings.all_files()] == ["old.txt"]
    assert [p.name for p in recordings.all_files()] == ["new.txt"]
    assert sorted(p.name for p in (tmp_path / "recordings").iterdir()) == ["torch-2.13.0"]


def test_staged_recordings_are_dropped_when_recording_fails(tmp_path: Path):
    recordings = Recordings(tmp_path, "2.13.0")
    recordings.write(block(id_="old"), "1")
    with pytest.raises(RuntimeError), staged(recordings) as stage:
        stage.write(block(id_="new"), "2")
        raise RuntimeError("a block failed")
    assert [p.name for p in recordings.all_files()] == ["old.txt"]
    assert sorted(p.name for p in (tmp_path / "recordings").iterdir()) == ["torch-2.13.0"]


def test_a_kill_between_two_renames_is_finished_by_the_next_run(tmp_path: Path):
    """Where the system cannot exchange two directories, `home` is moved away before the stage
    takes its place; the next run finds a complete stage and no `home`."""
    home = Recordings(tmp_path, "2.13.0").home
    (tmp_path / "recordings/.torch-2.13.0.old/ch").mkdir(parents=True)
    (tmp_path / "recordings/.torch-2.13.0.new/ch").mkdir(parents=True)
    (tmp_path / "recordings/.torch-2.13.0.new/ch/b.txt").write_text("new\n")
    recover_stage(home)
    assert (home / "ch/b.txt").read_text() == "new\n"
    assert sorted(p.name for p in (tmp_path / "recordings").iterdir()) == ["torch-2.13.0"]


def test_another_python_records_only_what_it_prints_differently(tmp_path: Path):
    shared = Recordings(tmp_path, "2.15.0")
    same, differs = block(id_="same"), block(id_="differs")
    shared.write(same, "gc thresholds: (700, 10, 10)")
    shared.write(differs, "TypeError: unexpected keyword 'use_cuda'")
    newer = Recordings(tmp_path, "2.15.0", python="3.13.0")
    assert not newer.has_overlay  # nothing recorded for 3.13 yet: its builds are checked against the shared files
    assert newer.write(same, "gc thresholds: (700, 10, 10)") is None
    written = newer.write(differs, "TypeError: unexpected keyword 'use_cuda'. Did you mean 'use_cpu'?")
    newer.mark_overlay("3.13.0")
    assert newer.relative(written) == "recordings/torch-2.15.0/python-3.13/ch/differs.txt"
    assert newer.has_overlay and shared.pythons() == ["3.13"]
    assert [newer.relative(newer.path(b)) for b in (same, differs)] == [
        "recordings/torch-2.15.0/ch/same.txt",
        "recordings/torch-2.15.0/python-3.13/ch/differs.txt",
    ]
    assert newer.read(differs).endswith("Did you mean 'use_cpu'?")
    assert shared.read(differs) == "TypeError: unexpected keyword 'use_cuda'"
    # The shared listing (What changed, comparisons between releases) leaves overlays out.
    assert [p.name for p in shared.all_files()] == ["differs.txt", "same.txt"]
    assert sorted(newer.page_outputs("ch.md")) == sorted(
        ["gc thresholds: (700, 10, 10)\n", "TypeError: unexpected keyword 'use_cuda'. Did you mean 'use_cpu'?\n"]
    )
    # The page of the recording Python says where 3.13 prints differently, and 3.13's the other way round.
    assert shared.other_pythons(differs) == {"3.13": newer.read(differs)}
    assert shared.other_pythons(same) == {}
    assert newer.other_pythons(differs) == {"3.11": shared.read(differs)}


def test_an_overlay_that_repeats_the_shared_recording_is_removed(tmp_path: Path):
    shared = Recordings(tmp_path, "2.15.0")
    b = block()
    shared.write(b, "old message")
    newer = Recordings(tmp_path, "2.15.0", python="3.13")
    newer.write(b, "new message")
    newer.mark_overlay("3.13.0")
    shared.write(b, "new message")  # the recording Python now prints it too
    assert newer.write(b, "new message") is None
    assert newer.path(b) == shared.path(b) and newer.overlay_files() == []
    assert newer.has_overlay  # still recorded for 3.13: nothing differs


def test_overlay_recordings_of_a_removed_block_are_stale(tmp_path: Path):
    shared = Recordings(tmp_path, "2.15.0")
    kept, gone = block(id_="kept"), block(id_="gone")
    newer = Recordings(tmp_path, "2.15.0", python="3.12")
    for b in (kept, gone):
        shared.write(b, "3.11")
        newer.write(b, "3.12")
    stale = shared.stale([Page("ch.md", (kept,))])
    assert [shared.relative(p) for p in stale] == [
        "recordings/torch-2.15.0/ch/gone.txt",
        "recordings/torch-2.15.0/python-3.12/ch/gone.txt",
    ]


def test_another_platform_reads_its_overlay_first_and_records_only_what_differs(tmp_path: Path):
    shared, same, other = block(id_="shared"), block(id_="same"), block(id_="other")
    recordings = Recordings(tmp_path, "2.13.0")
    for each in (shared, same, other):
        recordings.write(each, "x86")
    arm = Recordings(tmp_path, "2.13.0", platform="linux-aarch64")
    assert not arm.has_platform
    assert arm.write(same, "x86") is None  # the shared file holds it
    written = arm.write(other, "arm")
    assert arm.relative(written) == "recordings/torch-2.13.0/platform-linux-aarch64/ch/other.txt"
    arm.mark_platform()
    assert arm.has_platform
    assert [arm.read(b) for b in (shared, same, other)] == ["x86", "x86", "arm"]
    assert recordings.read(other) == "x86" and recordings.all_files() == [
        recordings.path(b) for b in (other, same, shared)
    ]
    assert recordings.stale([Page("ch.md", (shared, same, other))]) == []
    assert recordings.stale([Page("ch.md", (shared, same))]) == [recordings.path(other), written]


def test_a_recording_whose_only_change_is_a_measured_value_is_left_as_it_was(tmp_path: Path):
    recordings = Recordings(tmp_path, "2.13.0")
    measured = block()
    path = recordings.write(measured, "ratio: 1.00x (measured; claim: > 0.5)")
    recordings.write(measured, "ratio: 1.42x (measured; claim: > 0.5)")
    assert path.read_text() == "ratio: 1.00x (measured; claim: > 0.5)\n"
    recordings.write(measured, "ratio: 1.42x (measured; claim: > 0.9)")
    assert path.read_text() == "ratio: 1.42x (measured; claim: > 0.9)\n"


def test_recordings_remembered_before_pages_run_are_what_is_checked(tmp_path: Path):
    recordings = Recordings(tmp_path, "2.13.0")
    recordings.write(block(), "recorded")
    recordings.remember([Page("ch.md", (block(),))])
    recordings.path(block()).write_text("rewritten by the block\n")
    assert recordings.read(block()) == "recorded"


def test_a_symlinked_recording_is_never_written_through(tmp_path: Path):
    system_file = tmp_path / "system-file"
    system_file.write_text("precious\n")
    recordings = Recordings(tmp_path / "repo", "2.13.0")
    recordings.write(block(id_="other"), "1")
    recordings.path(block()).symlink_to(system_file)
    with pytest.raises(TreeError, match=r"symbolic link\(s\) in the repository: recordings/torch-2.13.0/ch/b.txt"):
        with staged(recordings) as stage:
            stage.write(block(), "overwritten")
    with pytest.raises(TreeError, match=r"recording 'recordings/torch-2.13.0/ch/b.txt': .* is a symbolic link"):
        recordings.write(block(), "overwritten")
    with pytest.raises(TreeError, match=r"recording 'recordings/torch-2.13.0/ch/b.txt': .* is a symbolic link"):
        recordings.read(block())
    assert system_file.read_text() == "precious\n"


def test_a_binary_recording_names_its_file(tmp_path: Path):
    recordings = Recordings(tmp_path, "2.13.0")
    recordings.path(block()).parent.mkdir(parents=True)
    recordings.path(block()).write_bytes(b"\x89PNG\r\n\x1a\n")
    with pytest.raises(TreeError, match=r"recordings/torch-2.13.0/ch/b.txt: not UTF-8 text \(byte 0x89 at offset 0\)"):
        recordings.read(block())


def test_a_directory_where_a_recording_should_be_names_it(tmp_path: Path):
    recordings = Recordings(tmp_path, "2.13.0")
    recordings.path(block()).mkdir(parents=True)
    with pytest.raises(TreeError, match="recordings/torch-2.13.0/ch/b.txt: not a file where a recording should be"):
        recordings.read(block())
    with pytest.raises(TreeError, match="recordings/torch-2.13.0/ch/b.txt: not a file where a recording should be"):
        recordings.write(block(), "1")
