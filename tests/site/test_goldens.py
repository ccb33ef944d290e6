"""`python -m handbook goldens` killed with SIGKILL at each step of writing leaves the
recordings as they were or fully updated, and its next run leaves nothing behind."""

from __future__ import annotations

import signal
from pathlib import Path

import pytest
from conftest import INSTALLED

PAGE = """
# Demo

## Blocks

See [TensorImpl](pytorch:c10/core/TensorImpl.h#TensorImpl).

```python exec="on" id="kept"
print("kept")
```

```python exec="on" id="changed"
print({changed})
```

```python exec="on" id="{third}"
print("third")
```
"""


def everything_under(directory: Path) -> dict[str, str]:
    """Every file, hidden ones included: a stage left behind shows here."""
    return {p.relative_to(directory).as_posix(): p.read_text() for p in sorted(directory.rglob("*")) if p.is_file()}


@pytest.mark.parametrize("point", ["writing", "staged", "swapped"])
def test_goldens_killed_at_any_step_leaves_recordings_whole(project, point):
    """`writing`: after the first file is written; `staged`: all written, before the swap;
    `swapped`: after the swap, before the old copy is removed."""
    project.write("docs/demo.md", PAGE.format(changed="'before'", third="removed"))
    assert project.goldens().returncode == 0
    original = everything_under(project.root / "recordings")
    project.write("docs/demo.md", PAGE.format(changed="'after'", third="added"))  # a change, an addition, a removal
    killed = project.goldens(HANDBOOK_GOLDENS_KILL_AT=point)
    assert killed.returncode == -signal.SIGKILL
    left = {
        path: text for path, text in everything_under(project.root / "recordings").items() if not path.startswith(".")
    }
    again = project.goldens()
    assert again.returncode == 0, again.stderr
    updated = everything_under(project.root / "recordings")  # and nothing else: no stage is left
    edition = f"torch-{INSTALLED}"
    assert updated.keys() == original.keys() - {f"{edition}/demo/removed.txt"} | {f"{edition}/demo/added.txt"}
    assert left == (updated if point == "swapped" else original)


def test_goldens_refuse_a_symlinked_recording_and_write_nothing_through_it(project):
    project.write("docs/demo.md", PAGE.format(changed='"first"', third="third"))
    assert project.goldens().returncode == 0
    system_file = project.root.parent / "system-file"
    system_file.write_text("precious\n")
    (recording,) = project.root.glob("recordings/torch-*/demo/changed.txt")
    recording.unlink()
    recording.symlink_to(system_file)
    project.write("docs/demo.md", PAGE.format(changed='"second"', third="third"))
    result = project.goldens()
    assert result.returncode == 1
    relative = recording.relative_to(project.root).as_posix()
    assert f"error: symbolic link(s) in the repository: {relative};" in result.stderr
    assert "Traceback" not in result.stderr
    assert system_file.read_text() == "precious\n"


def test_goldens_refuse_an_id_that_leads_outside_the_recordings(project):
    project.write("docs/demo.md", PAGE.format(changed='"first"', third="../../../X"))
    result = project.goldens()
    assert result.returncode == 1
    assert "docs/demo.md:15 (block 3): block id '../../../X' cannot name a recording file" in result.stderr
    assert not list(project.root.parent.rglob("X.txt"))


ON_AARCH64 = (
    "import sys; import handbook.environment as environment; "
    "environment.this_platform = lambda: 'linux-aarch64'; "  # before the engine imports it: all it sees
    "from handbook.__main__ import main; sys.argv = ['handbook', 'goldens']; sys.exit(main())"
)


def test_goldens_on_a_platform_without_recordings_writes_its_overlay_not_the_shared_files(project):
    """The real path (the command, `record`, `staged`) on another platform: what it prints differently
    goes to that platform's overlay, which is marked recorded; the shared recordings stay as they were."""
    project.write(
        "docs/demo.md",
        PAGE.format(changed='__import__("os").environ.get("PRINTED", "x86")', third="third"),
    )
    assert project.goldens().returncode == 0
    shared = everything_under(project.root / "recordings")
    # A page inherits none of the build's variables but those named (HANDBOOK_PAGE_VARIABLES).
    through = {"PRINTED": "arm", "HANDBOOK_PAGE_VARIABLES": "PRINTED"}
    arm = project.run("-c", ON_AARCH64, env={**through, "HANDBOOK_CACHE": "0"})
    assert arm.returncode == 0, arm.stderr
    after = everything_under(project.root / "recordings")
    assert {path: after[path] for path in shared} == shared  # not one shared file changed
    assert {path: text for path, text in after.items() if path not in shared} == {
        f"torch-{INSTALLED}/platform-linux-aarch64/demo/changed.txt": "arm\n",
        f"torch-{INSTALLED}/platform-linux-aarch64/platform": "linux-aarch64\n",
    }
