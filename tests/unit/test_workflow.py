"""The CI workflows and the locks they install from (ARCHITECTURE.md, "Editions, Pythons and platforms",
"Publishing").

Every action is pinned by commit; no `${{ }}` expression is pasted into a shell; a job that
may write runs no project code; a job that runs project code keeps no token in `.git/config`;
every requirement carries its hashes, and `make` installs with `--require-hashes`.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml

REPO = Path(__file__).resolve().parents[2]
WORKFLOWS = sorted((REPO / ".github" / "workflows").glob("*.yml"))
LOCKS = [REPO / "requirements.lock", *sorted((REPO / "locks").glob("torch-*.txt"))]
TOOL_LOCKS = [REPO / "locks" / "properdocs.txt"]  # installed by one target alone (`make properdocs`)
PINNED_ACTION = re.compile(r"^[\w.-]+/[\w./-]+@[0-9a-f]{40}$")
# What runs the project's own code: its Makefile, its Python, an install of it.
PROJECT_CODE = re.compile(r"(^|[\s;&|(])(make|python[\d.]*|pip[\d.]*)(\s|$)", re.M)


def jobs() -> list[tuple[str, dict, dict]]:
    """(workflow file:job, job, workflow) for every job of every workflow."""
    found = []
    for path in WORKFLOWS:
        workflow = yaml.safe_load(path.read_text())
        found += [(f"{path.name}:{name}", job, workflow) for name, job in workflow["jobs"].items()]
    return found


def steps() -> list[tuple[str, dict]]:
    return [(f"{where} step {n}", step) for where, job, _ in jobs() for n, step in enumerate(job.get("steps", []), 1)]


def writes(job: dict, workflow: dict) -> bool:
    permissions = job.get("permissions", workflow.get("permissions", "write-all"))
    if isinstance(permissions, str):
        return permissions == "write-all"
    return "write" in permissions.values()


def runs_project_code(job: dict) -> bool:
    return any(PROJECT_CODE.search(step.get("run", "")) for step in job.get("steps", []))


def is_checkout(step: dict) -> bool:
    return step.get("uses", "").startswith("actions/checkout@")


def test_the_workflows_are_there_and_parse():
    assert WORKFLOWS and jobs()


def test_every_action_is_pinned_by_commit():
    unpinned = [f"{where}: {step['uses']}" for where, step in steps() if "uses" in step]
    unpinned = [entry for entry in unpinned if not PINNED_ACTION.match(entry.split(": ", 1)[1])]
    assert not unpinned, "actions pinned by tag, not by a 40-hex commit:\n" + "\n".join(unpinned)


def test_every_pin_names_its_tag():
    for path in WORKFLOWS:
        for line in path.read_text().splitlines():
            if re.search(r"uses: \S+@[0-9a-f]{40}", line):
                assert re.search(r"@[0-9a-f]{40}\s+# v\d+(\.\d+)*$", line), f"{path.name}: no tag comment: {line}"


def test_no_expression_is_pasted_into_a_shell():
    pasted = [f"{where}: {step['run']}" for where, step in steps() if "${{" in step.get("run", "")]
    assert not pasted, "pass values through env:, not ${{ }} inside run:\n" + "\n".join(pasted)


def test_a_job_that_may_write_runs_no_project_code():
    offending = [where for where, job, workflow in jobs() if writes(job, workflow) and runs_project_code(job)]
    assert not offending, f"jobs with write permission that run make/python/pip: {offending}"


def test_a_job_that_runs_project_code_keeps_no_token():
    offending = [
        f"{where} ({step['uses']})"
        for where, job, _ in jobs()
        if runs_project_code(job)
        for step in job.get("steps", [])
        if is_checkout(step) and step.get("with", {}).get("persist-credentials") is not False
    ]
    assert not offending, f"checkouts without persist-credentials: false in jobs running project code: {offending}"


def test_the_deploy_publishes_with_write_rights_from_a_read_only_build():
    """Someone must still push gh-pages: a job that may write, fed by one that builds."""
    publishing = [(where, job) for where, job, workflow in jobs() if writes(job, workflow)]
    assert publishing, "no job may push gh-pages"
    for where, job in publishing:
        assert job.get("permissions") == {"contents": "write"}, where
        assert "gh-pages:refs/heads/gh-pages" in "".join(step.get("run", "") for step in job["steps"]), where


PROJECT_COMMANDS = ["make test", "python -m handbook deploy", "x && pip install .", "python3.12 tools/lock.py 2.16.0"]


@pytest.mark.parametrize("case", PROJECT_COMMANDS)
def test_project_code_is_recognised(case):
    assert runs_project_code({"steps": [{"run": case}]})


@pytest.mark.parametrize("case", ["git push origin gh-pages", "git -C publish fetch ../gh-pages.bundle", "makes"])
def test_git_alone_is_not_project_code(case):
    assert not runs_project_code({"steps": [{"run": case}]})


def requirements(lock: Path) -> list[str]:
    """The lock's logical lines (continuations joined), comments and blanks left out."""
    lines = lock.read_text().replace("\\\n", " ").splitlines()
    return [line.strip() for line in lines if line.strip() and not line.lstrip().startswith("#")]


@pytest.mark.parametrize("lock", LOCKS + TOOL_LOCKS, ids=lambda path: path.name)
def test_every_requirement_carries_its_hashes(lock):
    bare = [line for line in requirements(lock) if not re.search(r"--hash=sha256:[0-9a-f]{64}", line)]
    assert not bare, f"{lock.name}: requirements without --hash:\n" + "\n".join(bare)


def test_every_supported_torch_has_a_lock():
    supported = re.search(r"^SUPPORTED := (.+)$", (REPO / "Makefile").read_text(), re.M)[1].split()
    assert [path.name for path in LOCKS[1:]] == [f"torch-{release}.txt" for release in supported]


def test_make_installs_with_required_hashes():
    installs = [line for line in (REPO / "Makefile").read_text().splitlines() if "-r requirements.lock" in line]
    assert installs and all("--require-hashes" in line for line in installs), installs
