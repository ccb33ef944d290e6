"""What happened to a block: the one list of statuses, with what each means.

A status is set by the runner (the block ran, or how it failed) and then by the check
against its recording (drift, unrecorded, a GPU block shown from its recording). Each
says whether the build passes with it, whether `make goldens` may record the output,
and what it means, in the words of failure messages and of "How this site is built" (marked
`translatable`: a page shows it in the site's language, `handbook.messages`).
The values are the strings stored in the execution cache and the execution report.
"""

from __future__ import annotations

from enum import StrEnum

from handbook.messages import translatable


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
    OK = ("ok", True, True, translatable("executed in this build"))
    CACHED = (
        "cached",
        True,
        True,
        translatable("executed in an earlier build with identical code, includes and environment; its run was reused"),
    )
    RECORDED = ("recorded", True, False, translatable("not executed (render-only preview build)"))
    # Not run here by design: a GPU-only block without a GPU. The check turns it into one of the two below.
    SKIPPED = ("skipped", True, False, translatable("not run here by design"))
    GPU_RECORDED = (
        "gpu-recorded",
        True,
        False,
        translatable("GPU-only; shows the output recorded on a GPU (device and date below)"),
    )
    GPU_MISSING = ("gpu-missing", True, False, translatable("GPU-only; no output has been recorded on a GPU yet"))
    # The block did not run to its end.
    RAISED = ("raised", False, False, translatable("the block raised an exception"))
    EXIT = ("exit", False, False, translatable("the block called sys.exit"))
    EXITED = ("exited", False, False, translatable("the page process exited during the block"))
    CRASHED = ("crashed", False, False, translatable("the page process crashed during the block"))
    TIMEOUT = ("timeout", False, False, translatable("the block ran past its timeout"))
    OUTPUT = ("output", False, False, translatable("the block printed too much"))
    MEMORY = ("memory", False, False, translatable("the page ran past its memory limit"))
    LATE_OUTPUT = (
        "late-output",
        False,
        False,
        translatable("a thread the block started printed after the block ended"),
    )
    FIGURE = (
        "figure",
        False,
        False,
        translatable("the block's figure is missing, too large or not an SVG the site may show"),
    )
    FORGED = (
        "forged",
        False,
        False,
        translatable("the page process sent the build a message it does not send (a block wrote to its socket)"),
    )
    NOT_RUN = (
        "not-run",
        False,
        False,
        translatable("the block did not run because an earlier block of its page failed"),
    )
    # It ran, and its output does not match what is recorded.
    DRIFT = ("drift", False, True, translatable("the output differs from its recording"))
    CLAIM = ("claim", False, False, translatable("a measured value does not hold the claim printed beside it"))
    UNRECORDED = ("unrecorded", False, True, translatable("the block has no recording"))
    MISPREDICTED = (
        "mispredicted",
        False,
        False,
        translatable("the prediction disagrees with what was recorded on a GPU"),
    )

    @property
    def ran(self) -> bool:
        """The block ran to its end, in this build or an earlier one."""
        return self in {Status.OK, Status.CACHED}

    @property
    def shows_recording(self) -> bool:
        """Nothing ran: the page shows a recording."""
        return self in {Status.RECORDED, Status.GPU_RECORDED, Status.GPU_MISSING}

    @property
    def gpu_only(self) -> bool:
        """A GPU-only block shown without a GPU: its recording, or the word that none exists."""
        return self in {Status.GPU_RECORDED, Status.GPU_MISSING}

    @property
    def against_recording(self) -> bool:
        """It ran to its end, and what it printed is not what is recorded (or nothing is): what
        `make goldens` resolves, unlike a block that failed to run."""
        return self in {Status.DRIFT, Status.UNRECORDED}

    @property
    def has_output(self) -> bool:
        """It ran to its end, its whole output printed (matching its recording or not): a figure is checked then."""
        return self in {Status.OK, Status.CACHED, Status.DRIFT}

    @property
    def may_be_noise(self) -> bool:
        """A failure a fresh run may not repeat: a drift or a missed claim (`BlockResult.worth_running_again`)."""
        return self in {Status.DRIFT, Status.CLAIM}

    @property
    def storable(self) -> bool:
        """A page's run may be kept in the execution cache only if each of its blocks is so: run to
        its end in this build, or not run here by design."""
        return self in {Status.OK, Status.SKIPPED}
