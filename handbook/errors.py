"""The one kind of error that bad input to the build raises.

A page, a file of the tree or a setting that cannot be used is reported as its
message, which names the place (page and line, block, snippet `file:line`, or the
file); the plugin and the command line show it as such, never as a traceback.
"""

from __future__ import annotations

import subprocess


class InputError(Exception):
    """Bad input to the build; the message names where it is and what is wrong."""


def failed_command(failed: subprocess.CalledProcessError) -> str:
    """A tool that failed, named with what it said (the end of its stderr)."""
    said = failed.stderr.decode(errors="replace") if isinstance(failed.stderr, bytes) else failed.stderr or ""
    command = " ".join(map(str, failed.cmd)) if isinstance(failed.cmd, list | tuple) else str(failed.cmd)
    return f"`{command[:300]}` exited with {failed.returncode}" + (f":\n{said.strip()[-2000:]}" if said.strip() else "")
