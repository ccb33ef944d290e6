"""What happened to a block: the one list of statuses, with what each means.

A status is set by the runner (the block ran, or how it failed) and then by the check
against its recording (drift, unrecorded, a GPU block shown from its recording). Each
says whether the build passes with it, whether `make goldens` may record the output,
and what it means, in the words of failure messages and of "How this site is built".
The values are the strings stored in the execution cache and the execution report.
"""

from __future__ import annotations

from enum import StrEnum


class Status(StrEnum):
    passes: bool
    recordable: bool  # its output may become the recording
    meaning: str

    def __new__(cls, value: str, passes: bool, recordable: bool, meaning: str) -> Status:
        member = str.__new__(cls, value)
        member._value_ = value
        member.passes, member.recordable, member.meaning = passes, recordable, meaning
        return member

    # The block ran, or its run was reused.
    OK = ("ok", True, True, "executed in this build")
    CACHED = (
        "cached",
        True,
        True,
        "executed in an earlier build with identical code, includes and environment; its run was reused",
    )
    RECORDED = ("recorded", True, False, "not executed (render-only preview build)")
    # Not run here by design: a GPU-only block without a GPU. The check turns it into one of the two below.
    SKIPPED = ("skipped", True, False, "not run here by design")
    GPU_RECORDED = ("gpu-recorded", True, False, "GPU-only; shows the output recorded on a GPU (device and date below)")
    GPU_MISSING = ("gpu-missing", True, False, "GPU-only; no output has been recorded on a GPU yet")
    # The block did not run to its end.
    RAISED = ("raised", False, False, "the block raised an exception")
    EXIT = ("exit", False, False, "the block called sys.exit")
    EXITED = ("exited", False, False, "the page process exited during the block")
    CRASHED = ("crashed", False, False, "the page process crashed during the block")
    TIMEOUT = ("timeout", False, False, "the block ran past its timeout")
    OUTPUT = ("output", False, False, "the block printed too much")
    MEMORY = ("memory", False, False, "the page ran past its memory limit")
    LATE_OUTPUT = ("late-output", False, False, "a thread the block started printed after the block ended")
    FIGURE = ("figure", False, False, "the block's figure is missing, too large or not an SVG the site may show")
    NOT_RUN = ("not-run", False, False, "the block did not run because an earlier block of its page failed")
    # It ran, and its output does not match what is recorded.
    DRIFT = ("drift", False, True, "the output differs from its recording")
    CLAIM = ("claim", False, False, "a measured value does not hold the claim printed beside it")
    UNRECORDED = ("unrecorded", False, True, "the block has no recording")
    MISPREDICTED = ("mispredicted", False, False, "the prediction disagrees with what was recorded on a GPU")

    @property
    def ran(self) -> bool:
        """The block ran to its end, in this build or an earlier one."""
        return self in {Status.OK, Status.CACHED}

    @property
    def shows_recording(self) -> bool:
        """Nothing ran: the page shows a recording."""
        return self in {Status.RECORDED, Status.GPU_RECORDED, Status.GPU_MISSING}

    @property
    def storable(self) -> bool:
        """A page's run may be kept in the execution cache only if each of its blocks is so: run to
        its end in this build, or not run here by design."""
        return self in {Status.OK, Status.SKIPPED}
