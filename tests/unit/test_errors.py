"""Bad input and failed tools become messages that name what failed."""

from __future__ import annotations

import subprocess

from handbook.errors import failed_command


def test_a_failed_tool_is_named_with_the_end_of_what_it_said():
    failed = subprocess.CalledProcessError(1, ["mike", "deploy", "2.14"], stderr=b"x" * 5000 + b"\nerror: no branch\n")
    message = failed_command(failed)
    assert message.startswith("`mike deploy 2.14` exited with 1:\n")
    assert message.endswith("error: no branch") and len(message) < 2100


def test_a_tool_that_said_nothing_is_named_alone():
    assert failed_command(subprocess.CalledProcessError(2, "make versions")) == "`make versions` exited with 2"
