"""What this machine allows, asked once, for the tests that depend on it to say why they skip."""

from __future__ import annotations

import subprocess
import sys


def refused_here() -> str | None:
    """Why this machine gives no process a private read-only view (None: it does); asked of a child."""
    probe = "from handbook.execution.confinement import confine; print(confine(['/usr'], []))"
    said = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=60).stdout.strip()
    return None if said.startswith("the file system read-only but for their own directories") else said


REFUSED = refused_here()
