"""The one list of block statuses: what passes, what may be recorded, what the cache keeps."""

from __future__ import annotations

from handbook.execution.status import Status


def test_every_status_says_what_it_means_and_the_groups_agree():
    for status in Status:
        assert status.meaning and status.value == str(status)
        assert not (status.ran and status.shows_recording)  # run, or shown from a recording: never both
        if status.ran or status.shows_recording:
            assert status.passes
        if status.storable:
            assert status.passes and not status.shows_recording


def test_failures_neither_pass_nor_are_kept():
    for status in (Status.RAISED, Status.TIMEOUT, Status.CRASHED, Status.DRIFT, Status.LATE_OUTPUT):
        assert not status.passes and not status.storable
    assert Status.DRIFT.recordable and Status.UNRECORDED.recordable and not Status.CLAIM.recordable
    # goldens records nothing while any block ends in one of these: the failures project of
    # tests/site/test_plugin.py breaks a page with each kind in one build, where any one of them
    # keeps every recording as it was; this says it of each kind on its own
    failures = (Status.RAISED, Status.EXIT, Status.EXITED, Status.CRASHED, Status.TIMEOUT, Status.MEMORY, Status.OUTPUT)
    for status in failures:
        assert not status.recordable and not status.shows_recording, status


def test_statuses_read_back_from_their_stored_strings():
    assert Status("late-output") is Status.LATE_OUTPUT and Status("ok").ran
