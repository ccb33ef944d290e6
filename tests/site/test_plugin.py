"""End to end: a small handbook built by mkdocs with the plugin, broken in every way the build must catch."""

from __future__ import annotations

import queue
import re
import shutil
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from conftest import INSTALLED, Project, once_per_run
from probes import REFUSED
from site_browser import stale

from handbook.environment import RECORDED_PYTHON, SUPPORTED_PYTHONS

REPO = Path(__file__).resolve().parents[2]

PAGE = """
# Demo

## Shapes

Linked to [TensorImpl](pytorch:c10/core/TensorImpl.h#TensorImpl).

```python exec="on"
--8<-- "snippets/demo/shapes.py:setup"
```

```python exec="on"
--8<-- "snippets/demo/shapes.py:body"
```
"""

SNIPPET = """
import torch

# --8<-- [start:setup]
import torch
t = torch.arange(6).view(2, 3)
print("setup done")
# --8<-- [end:setup]

# --8<-- [start:body]
print("strides:", t.stride())
{injected}
# --8<-- [end:body]
"""


# 2 GiB, touched in 64 MiB steps, then held: a page limited to 1 GiB is stopped on the way.
ALLOCATION = "chunks = [torch.ones(2**24) for _ in range(32)]\nimport time; time.sleep(3)"


def with_body_option(option: str) -> str:
    """PAGE with `option` on the fence of its second block."""
    return PAGE.replace(
        '```python exec="on"\n--8<-- "snippets/demo/shapes.py:body"',
        f'```python exec="on" {option}\n--8<-- "snippets/demo/shapes.py:body"',
    )


def make(project, injected: str = "") -> None:
    project.write("docs/demo.md", PAGE)
    project.write("snippets/demo/shapes.py", SNIPPET.format(injected=injected))


@pytest.fixture
def recorded(project):
    return recorded_clean(project)


def recorded_clean(project):
    """`project` with the demo page and its snippet, recorded by goldens."""
    make(project)
    result = project.goldens()
    assert result.returncode == 0, result.stderr
    return project


def test_clean_build_passes_and_renders_output_and_report(recorded):
    result = recorded.build()
    assert result.returncode == 0, result.stderr
    html = (recorded.root / "site/demo/index.html").read_text()
    assert "strides: (3, 1)" in html
    assert f"https://github.com/pytorch/pytorch/blob/v{INSTALLED}/c10/core/TensorImpl.h#L" in html
    import json

    report = json.loads((recorded.root / "site/execution-report.json").read_text())
    assert report["torch"].startswith(INSTALLED)
    # goldens ran the page just before: the build reuses that run
    assert [b["status"] for b in report["blocks"]] == ["cached", "cached"]
    assert report["blocks"][1]["source"] == "snippets/demo/shapes.py:10"


FAILURES = {
    "raise": ('raise ValueError("boom")', "the block raised", "ValueError: boom"),
    "sys.exit": ("import sys; sys.exit(3)", "the block called sys.exit", "sys.exit(3)"),
    "os._exit": ("import os; os._exit(7)", "the page process exited", "exited with code 7"),
    "segfault": ("import ctypes; ctypes.string_at(0)", "the page process crashed", "SIGSEGV"),
    "timeout": ("import time; time.sleep(60)", "the block ran past its timeout", "timeout of 2 s"),
    "drift": ('print("something new")', "the output differs from its recording", "+something new"),
    "memory": (ALLOCATION, "the page ran past its memory limit", "past the page's limit of 1 GiB (DOCS_PAGE_MEMORY)"),
    "output": ("import os; os.write(1, b'y' * (65 * 2**20))", "the block printed too much", "printed more than 64 MiB"),
}
# One project holds every kind, a page each (docs/<page>.md, its blocks from snippets/<page>/shapes.py): a
# failing page stops only its own later blocks, and the build and goldens report every page's failure. The
# timeout page's blocks have DOCS_BLOCK_TIMEOUT=2; every other page's say timeout="60" on their fences.
FAILURE_PAGES = {kind: re.sub(r"[^a-z]+", "-", kind).strip("-") for kind in FAILURES}
FAILURE_LIMITS = {"DOCS_BLOCK_TIMEOUT": "2", "DOCS_PAGE_MEMORY": "1G"}
NAMED_PAGE = re.compile(r"docs/(?P<page>[a-z-]+)\.md, block ")


def failure_place(kind: str) -> str:
    page = FAILURE_PAGES[kind]
    return f"docs/{page}.md, block 2 (shapes-body), snippets/{page}/shapes.py:10"


def make_failure_page(project, kind: str, injected: str = "") -> None:
    page = FAILURE_PAGES[kind]
    markdown = PAGE.replace("snippets/demo/", f"snippets/{page}/")
    if kind != "timeout":
        markdown = markdown.replace('```python exec="on"\n', '```python exec="on" timeout="60"\n')
    project.write(f"docs/{page}.md", markdown)
    project.write(f"snippets/{page}/shapes.py", SNIPPET.format(injected=injected))


def said_of(stderr: str, kind: str) -> str:
    """What `stderr` says of `kind`'s page: each stretch from a line naming its page to the next that names one."""
    named = list(NAMED_PAGE.finditer(stderr))
    ends = [match.start() for match in named[1:]] + [len(stderr)]
    return "\n".join(
        stderr[match.start() : end]
        for match, end in zip(named, ends, strict=True)
        if match["page"] == FAILURE_PAGES[kind]
    )


@pytest.fixture(scope="session")
def failures_built(tmp_path_factory):
    """The failures project recorded clean, every page broken at once, then built once and goldens run once:
    (the recordings before, the build, goldens, the recordings after)."""

    def build():
        project = Project(tmp_path_factory.mktemp("failures") / "handbook")
        for kind in FAILURES:
            make_failure_page(project, kind)
        recorded = project.goldens()
        assert recorded.returncode == 0, recorded.stderr
        before = project.recordings()
        for kind, (code, _, _) in FAILURES.items():
            make_failure_page(project, kind, code)
        built = project.build(**FAILURE_LIMITS)
        goldens = project.goldens(**FAILURE_LIMITS)
        return before, built, goldens, project.recordings()

    return once_per_run(tmp_path_factory, "failures", build)


@pytest.mark.parametrize("kind", FAILURES)
def test_each_failure_fails_the_build_and_names_the_place(failures_built, kind):
    before, built, goldens, after = failures_built
    _, what, detail = FAILURES[kind]
    assert built.returncode != 0
    said = said_of(built.stderr, kind)
    assert f"{failure_place(kind)}: {what}" in said, built.stderr
    assert detail in said
    # goldens after a failed block leaves every recording as it was (drift is a change to record, not a
    # failure: only the other kinds' failures keep it unrecorded here)
    if kind != "drift":
        assert goldens.returncode != 0
        assert f"{failure_place(kind)}: {what}" in said_of(goldens.stderr, kind), goldens.stderr
        page = f"/{FAILURE_PAGES[kind]}/"
        assert {p: t for p, t in after.items() if page in p} == {p: t for p, t in before.items() if page in p} != {}


def test_a_block_raises_its_page_memory_limit_and_a_page_past_it_does_not_stop_the_build(recorded):
    recorded.write("snippets/demo/shapes.py", SNIPPET.format(injected=ALLOCATION + "\nprint('allocated', 1)"))
    recorded.write("docs/demo.md", with_body_option('memory="3G"'))
    recorded.write(
        "docs/other.md",
        "# Other\n\n## Drift\n\nSee [TensorImpl](pytorch:c10/core/TensorImpl.h#TensorImpl).\n\n```python "
        "exec=\"on\"\nprint('other')\n```\n",
    )
    assert recorded.goldens(DOCS_PAGE_MEMORY="1G").returncode == 0
    assert "allocated 1" in recorded.recordings()[f"torch-{INSTALLED}/demo/shapes-body.txt"]
    recorded.write("snippets/demo/shapes.py", SNIPPET.format(injected=ALLOCATION + "\nprint('allocated', 2)"))
    recorded.write("docs/other.md", (recorded.root / "docs/other.md").read_text().replace("'other'", "'changed'"))
    result = recorded.build(DOCS_PAGE_MEMORY="1G")
    assert result.returncode != 0
    assert (
        "+allocated 2" in result.stderr and "+changed" in result.stderr
    )  # the raised limit held; the other page was checked
    recorded.write("docs/demo.md", PAGE)
    result = recorded.build(DOCS_PAGE_MEMORY="1G")
    assert (
        "docs/demo.md, block 2 (shapes-body), snippets/demo/shapes.py:10: the page ran past its memory limit"
        in result.stderr
    )
    assert "+changed" in result.stderr


def test_a_bad_memory_option_names_the_block(recorded):
    recorded.write("docs/demo.md", with_body_option('memory="lots"'))
    result = recorded.build()
    assert result.returncode != 0
    assert "docs/demo.md:11 (block 2): memory='lots' is not a size such as 512M or 2G" in result.stderr


def test_traceback_points_at_the_snippet_line(recorded):
    make(recorded, 'raise ValueError("boom")')
    result = recorded.build()
    assert 'File "snippets/demo/shapes.py", line 11' in result.stderr


def test_stale_recording_fails_the_build(recorded):
    (recorded.root / f"recordings/torch-{INSTALLED}/demo/gone-block.txt").write_text("old\n")
    result = recorded.build()
    assert result.returncode != 0
    assert f"recordings/torch-{INSTALLED}/demo/gone-block.txt: a recording whose block is gone" in result.stderr


def test_missing_include_file_fails_the_build(recorded):
    recorded.write("docs/demo.md", PAGE.replace("snippets/demo/shapes.py:body", "snippets/demo/nothere.py:body"))
    result = recorded.build()
    assert result.returncode != 0
    assert "docs/demo.md:11 (block 2): included file 'snippets/demo/nothere.py' does not exist" in result.stderr


def test_missing_region_fails_the_build(recorded):
    recorded.write("docs/demo.md", PAGE.replace("shapes.py:body", "shapes.py:nothere"))
    result = recorded.build()
    assert result.returncode != 0
    assert "docs/demo.md:11 (block 2): region 'nothere' not found in snippets/demo/shapes.py" in result.stderr


def test_unrecorded_block_fails_the_build(project):
    make(project)
    result = project.build()
    assert result.returncode != 0
    assert f"no recording at recordings/torch-{INSTALLED}/demo/shapes-setup.txt" in result.stderr


def test_output_is_text_and_long_output_is_cut_on_the_page(project):
    project.write(
        "docs/demo.md",
        """
        # Demo

        ## Output

        See [TensorImpl](pytorch:c10/core/TensorImpl.h#TensorImpl).

        ```python exec="on"
        import sys
        print("<script>alert(1)</script>")
        sys.stdout.buffer.write(b"bad byte: \\xff\\n")
        for i in range(200):
            print("line", i)
        ```
        """,
    )
    assert project.goldens().returncode == 0
    recording = project.recordings()[f"torch-{INSTALLED}/demo/block-1.txt"]
    assert "line 199" in recording and "bad byte: \ufffd" in recording
    assert project.build().returncode == 0
    html = (project.root / "site/demo/index.html").read_text()
    assert "<script>alert(1)</script>" not in html and "&lt;script&gt;" in html
    assert "line 0" in html and "line 199" not in html
    assert "more line(s) not shown" in html


HUGE_LINE = """
# Demo

## Output

See [TensorImpl](pytorch:c10/core/TensorImpl.h#TensorImpl).

```python exec="on"
print({line})
```
"""


def test_one_huge_line_is_recorded_whole_cut_on_the_page_and_diffed_readably(project):
    project.write("docs/demo.md", HUGE_LINE.format(line='"x" * 5_000_000'))
    assert project.goldens().returncode == 0
    assert project.recordings()[f"torch-{INSTALLED}/demo/block-1.txt"] == "x" * 5_000_000 + "\n"
    result = project.build()
    assert result.returncode == 0, result.stderr
    html = (project.root / "site/demo/index.html").read_text()
    assert (
        f"4,990,000 more character(s) not shown; the whole output is in recordings/torch-{INSTALLED}/demo/block-1.txt"
        in html
    )
    assert len(html) < 100_000
    project.write("docs/demo.md", HUGE_LINE.format(line='"x" * 4_000_000 + "y" + "x" * 999_999'))
    result = project.build()
    assert result.returncode != 0
    assert "docs/demo.md, block 1 (block-1), docs/demo.md:8: the output differs from its recording" in result.stderr
    assert "+[3,999,900 characters]…" + "x" * 100 + "y" in result.stderr
    assert len(result.stderr) < 10_000


def test_gpu_block_without_gpu_says_nothing_is_recorded(project):
    project.write(
        "docs/demo.md",
        """
        # Demo

        ## GPU

        See [TensorImpl](pytorch:c10/core/TensorImpl.h#TensorImpl).

        ```python exec="on" device="cuda"
        import torch
        print(torch.cuda.memory_allocated())
        ```
        """,
    )
    assert project.goldens().returncode == 0
    assert project.build().returncode == 0
    html = (project.root / "site/demo/index.html").read_text()
    assert "no output has been recorded on a GPU yet" in html
    project.write(
        f"recordings/torch-{INSTALLED}/demo/block-1.cuda.txt",
        f"device: NVIDIA H200\ntorch: {INSTALLED}+cu130\nrecorded: 2026-11-29\n--- output ---\n0\n",
    )
    assert project.build().returncode == 0
    html = (project.root / "site/demo/index.html").read_text()
    assert f"recorded on NVIDIA H200 with torch {INSTALLED}+cu130 on 2026-11-29" in html


def test_pages_do_not_share_state(project):
    link = "See [TensorImpl](pytorch:c10/core/TensorImpl.h#TensorImpl).\n"
    project.write(
        "docs/a.md",
        "# A\n\n## Change\n\n"
        + link
        + '\n```python exec="on"\nimport torch\ntorch.set_printoptions(precision=1)\n'
        + "torch.set_default_dtype(torch.float64)\nleaked = 1\nprint(torch.tensor([1/3]))\n```\n",
    )
    project.write(
        "docs/b.md",
        "# B\n\n## Look\n\n"
        + link
        + '\n```python exec="on"\nimport torch\nprint(torch.tensor([1/3]), "leaked" in globals())\n```\n',
    )
    assert project.goldens().returncode == 0
    recordings = project.recordings()
    assert recordings[f"torch-{INSTALLED}/a/block-1.txt"] == "tensor([0.3])\n"
    assert recordings[f"torch-{INSTALLED}/b/block-1.txt"] == "tensor([0.3333]) False\n"


def test_section_without_source_link_fails(project):
    project.write(
        "docs/demo.md",
        "# Demo\n\n## Linked\n\n[x](pytorch:c10/core/TensorImpl.h#TensorImpl)\n\n## Bare\n\nNo link here.\n",
    )
    result = project.build()
    assert result.returncode != 0
    assert "docs/demo.md: section 'Bare' has no source link" in result.stderr


def test_bad_source_link_fails_naming_page_and_link(project):
    project.write("docs/demo.md", "# Demo\n\n## One\n\n[x](pytorch:c10/core/TensorImpl.h#NoSuchSymbol)\n")
    result = project.build()
    assert result.returncode != 0
    assert (
        "docs/demo.md:5: pytorch:c10/core/TensorImpl.h#NoSuchSymbol: symbol 'NoSuchSymbol' not found" in result.stderr
    )


PREDICTION_PAGE = """
# Demo

## Allocator

See [TensorImpl](pytorch:c10/core/TensorImpl.h#TensorImpl).

```python exec="on" id="rules" predicts="measured"
print("allocated: 512")
print("reserved: 2097152")
```

```python exec="on" id="measured" device="cuda"
import torch
x = torch.empty(100, device="cuda")
print("allocated:", torch.cuda.memory_allocated())
print("reserved:", torch.cuda.memory_reserved())
```
"""


def test_prediction_is_checked_against_the_gpu_recording_once_one_exists(project):
    project.write("docs/demo.md", PREDICTION_PAGE)
    assert project.goldens().returncode == 0
    result = project.build()
    assert result.returncode == 0, result.stderr
    assert (
        "no output has been recorded on a GPU yet to check it against"
        in (project.root / "site/demo/index.html").read_text()
    )
    gpu = f"recordings/torch-{INSTALLED}/demo/measured.cuda.txt"
    project.write(
        gpu,
        f"device: NVIDIA H200\ntorch: {INSTALLED}+cu130\nrecorded: 2026-12-01\n--- output ---\nallocated: "
        "512\nreserved: 2097152\n",
    )
    result = project.build()
    assert result.returncode == 0, result.stderr
    assert "checked against the output recorded on NVIDIA H200" in (project.root / "site/demo/index.html").read_text()
    project.write(
        gpu,
        f"device: NVIDIA H200\ntorch: {INSTALLED}+cu130\nrecorded: 2026-12-01\n--- output ---\nallocated: "
        "512\nreserved: 20971520\n",
    )
    result = project.build()
    assert result.returncode != 0
    assert (
        "docs/demo.md, block 1 (rules), docs/demo.md:8: the prediction disagrees with what was recorded on a GPU"
        in result.stderr
    )
    assert "reserved: predicted 2097152, recorded 20971520" in result.stderr


PYTHON_PAGE = """
# Demo

## Versions

Linked to [TensorImpl](pytorch:c10/core/TensorImpl.h#TensorImpl).

```python exec="on"
import sys
print("python", "%d.%d" % sys.version_info[:2])
```

```python exec="on"
print("the same on every Python")
```
"""


def another_python() -> tuple[str, Path, Path] | None:
    """Environments of this checkout for one torch release: one with the recording Python, one
    with another supported Python (`make build TORCH=<release> PY=3.13` makes it). Returns that
    Python's version and both interpreters."""
    for venv in sorted(REPO.glob(".venv-*-py3.*")):
        release, version = venv.name.removeprefix(".venv-").rsplit("-py", 1)
        recording = REPO / f".venv-{release}"
        ready = all((v / ".installed").is_file() for v in (venv, recording))
        if ready and version in SUPPORTED_PYTHONS and version != RECORDED_PYTHON:
            return version, recording / "bin" / "python", venv / "bin" / "python"
    return None


def test_another_pythons_output_is_folded_under_the_block(project):
    """Built with the recording Python, a page shows what another Python's overlay records."""
    project.write("docs/demo.md", PYTHON_PAGE)
    assert project.goldens().returncode == 0
    release = next((project.root / "recordings").iterdir()).name
    project.write(f"recordings/{release}/python-3.13/demo/block-1.txt", "python 3.13\n")
    project.write(f"recordings/{release}/python-3.13/python-version", "3.13.0\n")
    result = project.build()
    assert result.returncode == 0, result.stderr
    html = (project.root / "site/demo/index.html").read_text()
    assert html.count("prints this differently") == 1
    assert "Python 3.13 prints this differently</summary><pre><code>python 3.13</code></pre>" in html


@pytest.mark.other_python
def test_a_build_on_another_python_checks_its_own_overlay(project):
    """The real path, with a second interpreter: compared with the recording Python's outputs
    first (and told so), then recorded where it differs, then checked against that."""
    found = another_python()
    assert found is not None, "no environment for another supported Python (`make pythons` makes them, then runs this)"
    version, recording_python, python = found
    project.write("docs/demo.md", PYTHON_PAGE)
    assert project.goldens(python=str(recording_python)).returncode == 0
    shared = project.recordings()
    first = project.build(python=str(python))
    assert first.returncode != 0
    assert f"has no outputs recorded for Python {version}" in first.stderr
    assert f"+python {version}" in first.stderr and "block-2" not in first.stderr
    recorded = project.goldens(python=str(python))
    assert recorded.returncode == 0, recorded.stderr
    release = next((project.root / "recordings").iterdir()).name
    overlay = {k: v for k, v in project.recordings().items() if k not in shared}
    assert overlay == {f"{release}/python-{version}/demo/block-1.txt": f"python {version}\n"}
    assert project.recordings().items() >= shared.items()  # the shared recordings are untouched
    assert project.build(python=str(python)).returncode == 0
    assert project.build(python=str(recording_python)).returncode == 0


MEASURED = "import os\nprint(f\"ratio: {os.environ.get('RATIO', '1.00')}x (measured; claim: between 0.5 and 2)\")"


def test_a_measured_value_is_checked_by_its_claim_not_by_the_recording(recorded):
    make(recorded, MEASURED)
    assert recorded.goldens(RATIO="1.00", HANDBOOK_PAGE_VARIABLES="RATIO").returncode == 0
    before = recorded.recordings()
    other = recorded.build(RATIO="1.70", HANDBOOK_PAGE_VARIABLES="RATIO", HANDBOOK_CACHE="0")
    assert other.returncode == 0, other.stderr
    html = (recorded.root / "site/demo/index.html").read_text()
    assert "ratio: 1.70x (measured; claim: between 0.5 and 2)" in html  # what this build measured
    assert "The value marked (measured; claim: …) was measured in this build on " in html
    assert "ATen CPU capability " in html and "1 intra-op thread(s)" in html
    # re-recording a new measured value changes no file
    assert recorded.goldens(RATIO="1.30", HANDBOOK_PAGE_VARIABLES="RATIO", HANDBOOK_CACHE="0").returncode == 0
    assert recorded.recordings() == before
    broken = recorded.build(RATIO="2.50", HANDBOOK_PAGE_VARIABLES="RATIO", HANDBOOK_CACHE="0")
    assert broken.returncode != 0
    assert "docs/demo.md, block 2 (shapes-body), snippets/demo/shapes.py:10" in broken.stderr
    assert "a measured value does not hold the claim printed beside it" in broken.stderr
    assert "ratio: measured 2.50x, which does not hold the claim between 0.5 and 2" in broken.stderr
    assert "measured on " in broken.stderr and "ATen CPU capability" in broken.stderr
    # a broken claim is no output to record
    assert recorded.goldens(RATIO="2.50", HANDBOOK_PAGE_VARIABLES="RATIO", HANDBOOK_CACHE="0").returncode != 0
    assert recorded.recordings() == before


def test_a_drift_from_the_execution_cache_runs_its_page_again_before_failing(recorded):
    recorded.write(f"recordings/torch-{INSTALLED}/demo/shapes-body.txt", "strides: (1, 1)\n")
    result = recorded.build()  # goldens left the page's run in the cache
    assert result.returncode != 0
    assert "executed 1 page(s)" in result.stderr  # the cached run was not trusted
    assert "-strides: (1, 1)" in result.stderr and "+strides: (3, 1)" in result.stderr
    assert "its page ran a second time in this build, fresh" in result.stderr


# The ratio this block prints on its page's n-th run: RATIOS="9.99,1.00" misses its claim once.
FLAKY = (
    "import os, pathlib\n"
    "runs = pathlib.Path(os.environ['RUNS'])\n"
    "runs.write_text(runs.read_text() + 'x')\n"
    "ratios = os.environ['RATIOS'].split(',')\n"
    "ratio = ratios[min(len(runs.read_text()), len(ratios)) - 1]\n"
    'print(f"ratio: {ratio}x (measured; claim: between 0.5 and 2)")'
)


def test_a_built_site_records_the_tree_it_was_built_from_so_tests_refuse_a_stale_one(recorded):
    assert recorded.build().returncode == 0
    site = recorded.root / "site"
    assert stale(site, recorded.root) is None
    page = recorded.root / "docs/demo.md"
    page.write_text(page.read_text() + "\nA sentence added after the build.\n")
    assert "site/ was built from another state of the tree" in stale(site, recorded.root)


def test_a_missed_claim_runs_its_page_again_and_a_second_miss_fails(recorded):
    make(recorded, FLAKY)
    runs = recorded.root.parent / "counted" / "runs"  # outside the tree, written by the page (let through)
    runs.parent.mkdir()
    runs.write_text("")
    through = {"HANDBOOK_PAGE_VARIABLES": "RUNS,RATIOS", "HANDBOOK_PAGE_WRITABLE": str(runs.parent), "RUNS": str(runs)}
    assert recorded.goldens(RATIOS="1.00", **through).returncode == 0
    runs.write_text("")
    noisy = recorded.build(RATIOS="9.99,1.00", HANDBOOK_CACHE="0", **through)
    assert noisy.returncode == 0, noisy.stderr  # missed once, held when run again
    assert runs.read_text() == "xx"
    runs.write_text("")
    wrong = recorded.build(RATIOS="9.99,9.99", HANDBOOK_CACHE="0", **through)
    assert wrong.returncode != 0 and runs.read_text() == "xx"
    assert "ratio: measured 9.99x, which does not hold the claim between 0.5 and 2" in wrong.stderr
    assert "its page ran a second time in this build, fresh" in wrong.stderr


def test_a_block_that_writes_a_page_and_edits_mkdocs_yml_fails_the_build_naming_both(recorded):
    """Unconfined (a writer's machine): the tree guard finds both changes after the page, and keeps nothing."""
    cached = sorted((recorded.root / ".cache").rglob("exec/**/*.json"))
    injected, config = recorded.root / "docs/injected.md", recorded.root / "mkdocs.yml"
    make(recorded, f"open({str(injected)!r}, 'w').write('# Injected')\nopen({str(config)!r}, 'a').write('# edited')")
    result = recorded.build(HANDBOOK_READ_ONLY_TREE="0")
    assert result.returncode != 0
    assert "pages changed the repository while they ran" in result.stderr
    assert "when docs/demo.md ended: docs/injected.md (added), mkdocs.yml (changed)" in result.stderr
    assert sorted((recorded.root / ".cache").rglob("exec/**/*.json")) == cached  # nothing kept of that run
    assert "Traceback" not in result.stderr


def test_a_block_that_rewrites_its_own_recording_fails_the_build(recorded):
    (recording,) = recorded.root.glob("recordings/torch-*/demo/shapes-body.txt")
    make(recorded, f"print('new')\nopen({str(recording)!r}, 'w').write('strides: (3, 1)\\nnew\\n')")
    result = recorded.build(HANDBOOK_READ_ONLY_TREE="0")
    assert result.returncode != 0
    assert f"when docs/demo.md ended: {recording.relative_to(recorded.root).as_posix()} (changed)" in result.stderr


@pytest.mark.skipif(REFUSED is not None, reason=f"this machine refuses a private read-only mount: {REFUSED}")
def test_a_confined_block_can_write_neither_the_tree_nor_the_stored_runs_but_torch_caches_work(recorded):
    """Where the build runs as root (CI), a page sees the tree and the build's caches read-only: a block
    cannot rewrite its recording, nor forge the stored run a later build would publish without running it."""
    (recording,) = recorded.root.glob("recordings/torch-*/demo/shapes-body.txt")
    (entry,) = (recorded.root / ".cache").rglob("exec/**/*.json")
    before = recording.read_bytes(), entry.read_bytes()
    forge = (
        "import errno, os\n"
        f"for target in ({str(recording)!r}, {str(entry)!r}):\n"
        "    try:\n"
        "        open(target, 'r+').close()\n"
        "    except OSError as refused:\n"
        "        assert refused.errno == errno.EROFS, refused\n"
        "    else:\n"
        "        raise AssertionError(target + ' is writable')\n"
        "assert os.access(os.environ['TORCHINDUCTOR_CACHE_DIR'], os.W_OK)\n"
    )
    make(recorded, forge)
    result = recorded.build()
    assert result.returncode == 0, result.stderr
    assert "pages saw the file system read-only but for their own directories, without privileges" in result.stderr
    assert (recording.read_bytes(), entry.read_bytes()) == before


def test_a_snippet_linked_to_a_file_outside_is_refused_and_not_published(project):
    make(project)
    (project.root.parent / "passwd").write_text("root:x:0:0:secret:/root:/bin/bash\n")
    (project.root / "snippets/demo/passwd.py").symlink_to(project.root.parent / "passwd")
    project.write("docs/demo.md", PAGE + '\n```text\n--8<-- "snippets/demo/passwd.py"\n```\n')
    result = project.build()
    assert result.returncode != 0
    assert "symbolic link(s) in the repository: snippets/demo/passwd.py;" in result.stderr
    assert "Traceback" not in result.stderr
    assert not any("secret" in path.read_text(errors="replace") for path in project.root.rglob("site/**/*.*"))


@pytest.mark.parametrize("value", ["nan", "inf", "-inf", "0"])
def test_a_timeout_that_would_switch_it_off_names_the_block(recorded, value):
    recorded.write("docs/demo.md", with_body_option(f'timeout="{value}"'))
    result = recorded.build()
    assert result.returncode != 0
    assert f"docs/demo.md:11 (block 2): timeout='{value}' is not a number of seconds (finite, above 0)" in result.stderr


@pytest.mark.parametrize(
    "setting, message",
    [
        ({"DOCS_BLOCK_TIMEOUT": "nan"}, "DOCS_BLOCK_TIMEOUT='nan' is not a number of seconds (finite, above 0)"),
        ({"DOCS_PAGE_MEMORY": "0K"}, "DOCS_PAGE_MEMORY='0K' is not a size such as 512M or 2G (above 0)"),
    ],
)
def test_a_setting_that_would_switch_a_limit_off_fails_build_and_goldens_without_a_traceback(
    recorded, setting, message
):
    (recorded.root / ".cache").rename(recorded.root / ".cache-of-goldens")  # so that the page runs
    for result in (recorded.build(**setting), recorded.goldens(**setting)):
        assert result.returncode != 0
        assert message in result.stderr
        assert "Traceback" not in result.stderr


def _unterminated(project):
    project.write("docs/other.md", "# Other\n\n```text\nnever closed\n")


def _page_bytes(project):
    (project.root / "docs/demo.md").write_bytes(PAGE.encode() + b"caf\xe9\n")


def _snippet_bytes(project):
    path = project.root / "snippets/demo/shapes.py"
    path.write_bytes(path.read_bytes() + b"# caf\xe9\n")


def _binary_recording(project):
    next(project.root.glob("recordings/torch-*/demo/shapes-body.txt")).write_bytes(b"\x89PNG\r\n")


def _directory_recording(project):
    path = next(project.root.glob("recordings/torch-*/demo/shapes-body.txt"))
    path.unlink()
    path.mkdir()


def _cache_a_file(project):
    shutil.rmtree(project.root / ".cache")
    (project.root / ".cache").write_text("not a directory\n")


def _shown_include_outside(project):
    (project.root.parent / "outside.txt").write_text("outside\n")
    project.write("docs/demo.md", PAGE + '\n```text\n--8<-- "../outside.txt"\n```\n')


def _banana(project):
    project.write("docs/demo.md", PAGE + "\n<!-- if torch >= banana -->\nNew.\n<!-- end if -->\n")


@pytest.fixture(scope="session")
def recorded_once(tmp_path_factory) -> Project:
    """The demo project recorded clean, as `recorded` makes it, with goldens run once per test run."""

    return once_per_run(
        tmp_path_factory, "recorded", lambda: recorded_clean(Project(tmp_path_factory.mktemp("recorded") / "handbook"))
    )


@pytest.fixture
def recorded_copy(recorded_once, tmp_path) -> Project:
    """A copy of `recorded_once` for one test to break: its recordings and caches as goldens left them."""
    return Project.copy_of(recorded_once, tmp_path / "handbook")


@pytest.mark.parametrize(
    "breaking, message",
    [
        (_unterminated, "docs/other.md:3: the fence opened at line 3 is never closed"),
        (_page_bytes, "docs/demo.md: not UTF-8 text (byte 0xe9 at offset"),
        (_snippet_bytes, "docs/demo.md:7 (block 1): snippets/demo/shapes.py: not UTF-8 text (byte 0xe9 at offset"),
        (_binary_recording, "/demo/shapes-body.txt: not UTF-8 text (byte 0x89 at offset 0)"),
        (_directory_recording, "/demo/shapes-body.txt: not a file where a recording should be; remove it"),
        (_cache_a_file, "/.cache: the cache directory is not a directory"),
        (_shown_include_outside, "docs/demo.md:16: included file '../outside.txt' is outside the repository"),
        (_banana, "docs/demo.md:15: '<!-- if torch >= banana -->' is not a condition this page can use"),
    ],
)
def test_bad_input_is_a_message_naming_the_place_not_a_traceback(recorded_copy, breaking, message):
    # Each breaking in a build of its own: bad input stops the build at the first place it is found (the
    # scan, or the recordings read before any page runs), so one would hide another in a shared build.
    before = recorded_copy.recordings()
    breaking(recorded_copy)
    result = recorded_copy.build()
    assert result.returncode != 0
    assert message in result.stderr
    assert "Traceback" not in result.stderr
    if breaking not in (_binary_recording, _directory_recording):
        assert recorded_copy.recordings() == before  # nothing lost


def test_under_serve_a_writers_edit_while_pages_run_is_reported_and_the_site_rebuilt(recorded, tmp_path):
    """`mkdocs serve` itself: the writer saves a page while its blocks run. That is no page's doing
    (pages saw the tree read-only, or the guard cannot tell): a warning, not a failed build, and the
    edit is built."""
    running = tmp_path / "signal" / "block-running"  # outside the tree, let through: the block says when it runs
    running.parent.mkdir()
    make(recorded, f"import pathlib, time\npathlib.Path({str(running)!r}).touch()\ntime.sleep(4)")
    env = recorded.environment(HANDBOOK_CACHE="0", HANDBOOK_PAGE_WRITABLE=str(running.parent))
    port = free_port()
    server = subprocess.Popen(
        [sys.executable, "-m", "mkdocs", "serve", "--dev-addr", f"127.0.0.1:{port}"],
        cwd=recorded.root,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    log = ServerLog(server)
    page = recorded.root / "docs/demo.md"
    try:
        log.wait_for("Serving on")
        running.unlink()
        page.write_text(page.read_text().replace("# Demo", "# Demo, edited once"))  # starts a rebuild
        wait_until(running.exists)  # its block runs now
        page.write_text(page.read_text().replace("edited once", "edited twice"))
        log.wait_for("the tree changed while pages ran (your own edit, or a page's)")
        log.wait_for_rebuild()
    finally:
        server.terminate()
        server.wait(timeout=30)
    assert "when docs/demo.md ended: docs/demo.md (changed)" in log.text()
    assert "Aborted" not in log.text() and "Traceback" not in log.text()


def wait_until(condition, seconds: float = 120) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, f"{condition} never held"
        time.sleep(0.05)


class ServerLog:
    """A server's output, read by a thread of its own, so that waiting for a line has a deadline
    even when the server goes quiet."""

    def __init__(self, server: subprocess.Popen):
        self.lines: queue.Queue[str] = queue.Queue()
        self.seen: list[str] = []
        threading.Thread(target=lambda: [self.lines.put(line) for line in server.stdout], daemon=True).start()

    def wait_for(self, text: str, seconds: float = 180) -> None:
        deadline = time.monotonic() + seconds
        while (left := deadline - time.monotonic()) > 0:
            try:
                line = self.lines.get(timeout=left)
            except queue.Empty:
                break
            self.seen.append(line)
            if text in line:
                return
        raise AssertionError(f"{text!r} never came; the server said:\n{self.text()}")

    def wait_for_rebuild(self, seconds: float = 180) -> None:
        """Until a rebuild has ended. Not "Documentation built in N seconds": MkDocs' command line
        drops a message it logged before (its DuplicateFilter), so a rebuild as fast as the last is silent."""
        self.wait_for("Reloading browsers", seconds)

    def text(self) -> str:
        return "".join(self.seen)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


FIGURE_PAGE = """
# Demo

## Bars

Linked to [TensorImpl](pytorch:c10/core/TensorImpl.h#TensorImpl).

```python exec="on" figure="bars.svg" alt="Two bars: the second, b, twice as tall as the first, a"
--8<-- "snippets/demo/bars.py:bars"
```
"""

FIGURE_SNIPPET = """
# --8<-- [start:bars]
import matplotlib.pyplot as plt

fig, ax = plt.subplots(figsize=(3, 2))
heights = [1, 2]
ax.bar(["a", "b"], heights, color="{colour}")
fig.savefig("bars.svg")
print("heights:", heights)
# --8<-- [end:bars]
"""


def make_figure(project, colour: str = "#0072B2") -> None:
    project.write("docs/demo.md", FIGURE_PAGE)
    project.write("snippets/demo/bars.py", FIGURE_SNIPPET.format(colour=colour))


def test_a_figure_is_recorded_and_shown_and_a_changed_figure_fails_naming_its_block(project):
    make_figure(project)
    assert (result := project.goldens()).returncode == 0, result.stderr
    recorded = project.root / f"recordings/torch-{INSTALLED}/demo/bars-bars.svg"
    figure = recorded.read_text()
    assert figure.startswith("<svg") and "<metadata" not in figure and "Matplotlib v" not in figure
    assert (result := project.build()).returncode == 0, result.stderr
    html = (project.root / "site/demo/index.html").read_text()
    assert '<figure class="handbook-figure"><img src="../figures/demo/bars-bars.svg"' in html
    assert 'alt="Two bars: the second, b, twice as tall as the first, a"' in html
    assert (project.root / "site/figures/demo/bars-bars.svg").read_text() == figure
    # The same input draws the same bytes: a fresh run (no cache) still matches the recording.
    assert (result := project.build(HANDBOOK_CACHE="0")).returncode == 0, result.stderr
    # A changed input changes the figure and nothing the block prints: the build fails naming the block.
    make_figure(project, colour="#D55E00")
    result = project.build()
    assert result.returncode != 0
    assert "heights: [1, 2]" not in result.stderr.split("changed (its recording")[1]  # no output diff
    assert "docs/demo.md, block 1 (bars-bars), snippets/demo/bars.py:2" in result.stderr
    assert (
        f"the figure 'bars.svg' changed (its recording is recordings/torch-{INSTALLED}/demo/bars-bars.svg)"
        in result.stderr
    )


def test_a_figure_block_that_saves_no_figure_fails_naming_the_block(project):
    make_figure(project)
    project.write(
        "snippets/demo/bars.py", FIGURE_SNIPPET.format(colour="#0072B2").replace('fig.savefig("bars.svg")', "pass")
    )
    result = project.build()
    assert result.returncode != 0
    assert "docs/demo.md, block 1 (bars-bars), snippets/demo/bars.py:2: the block's figure is missing" in result.stderr
    assert "did not save it" in result.stderr and 'fig.savefig("bars.svg")' in result.stderr


def test_a_figure_with_a_script_is_refused(project):
    make_figure(project)
    unsafe = 'open("bars.svg", "w").write(\'<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>\')'
    project.write(
        "snippets/demo/bars.py", FIGURE_SNIPPET.format(colour="#0072B2").replace('fig.savefig("bars.svg")', unsafe)
    )
    result = project.build()
    assert result.returncode != 0
    assert "figure='bars.svg': the figure holds a <script> element" in result.stderr


def test_a_stale_figure_recording_fails_the_build(project):
    make_figure(project)
    assert project.goldens().returncode == 0
    (project.root / f"recordings/torch-{INSTALLED}/demo/gone.svg").write_text("<svg/>\n")
    result = project.build()
    assert result.returncode != 0
    assert f"recordings/torch-{INSTALLED}/demo/gone.svg: a recording whose block is gone" in result.stderr


# Blocks that try to get past the build: speak for their page, undo their view, forge a stored run.
ATTACKS = {
    "a forged message": (
        "import json, os, struct\n"
        "def is_socket(fd):\n"
        "    try:\n"
        "        return os.readlink(f'/proc/self/fd/{fd}').startswith('socket:')\n"
        "    except OSError:\n"
        "        return False\n"
        "fd = next(int(fd) for fd in os.listdir('/proc/self/fd') if is_socket(fd))\n"
        "frame = json.dumps({'kind': 'machine', 'cpu': 'Apple M9', 'arch': 'arm64', 'capability': 'AVX2',"
        " 'threads': 1}).encode()\n"
        "os.write(fd, struct.pack('!I', len(frame)) + frame)\n"
        "import time\ntime.sleep(5)"
    ),
    "a mount escape": (
        "import os, subprocess\n"
        "for command in (['mount', '-o', 'remount,rw', '/'], ['umount', '-l', os.getcwd()]):\n"
        "    subprocess.run(command, check=True, capture_output=True)"
    ),
    "a forged stored run": (
        "import glob, json, os\n"
        "pattern = os.path.join(os.environ['HANDBOOK_CACHE_DIR'], 'exec', '**', '*.json')\n"
        "for entry in glob.glob(pattern, recursive=True):\n"
        "    with open(entry) as stored:\n"
        "        data = json.load(stored)\n"
        "    for run in data['runs']:\n"
        "        run.update(status='skipped', output='forged output')\n"
        "    with open(entry, 'w') as stored:\n"
        "        json.dump(data, stored)"
    ),
}


@pytest.mark.parametrize("view", ["1", "0"], ids=["as root" if REFUSED is None else "as it is", "without a view"])
@pytest.mark.parametrize("attack", list(ATTACKS))
def test_a_block_that_gets_past_the_build_fails_it_naming_the_page_and_nothing_forged_is_shown(recorded, attack, view):
    make(recorded, ATTACKS[attack])
    result = recorded.build(HANDBOOK_READ_ONLY_TREE=view, HANDBOOK_CACHE="0")
    assert result.returncode != 0
    assert "docs/demo.md" in result.stderr and "Aborted with a BuildError!" in result.stdout  # not a crash
    if attack == "a forged message":
        assert "docs/demo.md, block 2 (shapes-body), snippets/demo/shapes.py:10" in result.stderr
        assert "a block may not speak for its page" in result.stderr
    make(recorded)  # the page as it was: whatever the attack left is not believed
    again = recorded.build()
    assert again.returncode == 0, again.stderr
    assert "forged" not in (recorded.root / "site/demo/index.html").read_text()


@pytest.mark.parametrize("view", ["1", "0"], ids=["as root" if REFUSED is None else "as it is", "without a view"])
def test_a_block_that_moves_the_published_branch_fails_the_build_naming_the_page(recorded, view):
    identity = ["-c", "user.name=t", "-c", "user.email=t@t"]
    for command in (["init", "-q", "-b", "main"], [*identity, "commit", "-q", "--allow-empty", "-m", "a"]):
        subprocess.run(["git", *command], cwd=recorded.root, check=True, capture_output=True)
    subprocess.run(["git", "branch", "gh-pages"], cwd=recorded.root, check=True)
    branch = recorded.root / ".git/refs/heads/gh-pages"
    before = branch.read_text()
    make(recorded, f"with open({str(branch)!r}, 'w') as ref:\n    ref.write('0' * 40 + '\\n')")
    result = recorded.build(HANDBOOK_READ_ONLY_TREE=view, HANDBOOK_CACHE="0")
    assert result.returncode != 0 and "docs/demo.md" in result.stderr
    if view == "0":
        assert ".git/refs/heads/gh-pages (changed)" in result.stderr
    else:
        assert "Read-only file system" in result.stderr and branch.read_text() == before
