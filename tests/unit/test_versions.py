"""Versions without a deploy: one version per torch release, the newest carrying `latest`, and the
supported releases and Pythons as the Makefile, the project and CI list them. mike's deploys, run:
tests/site/test_versions_deploy.py."""

from __future__ import annotations

import re
import subprocess
import tomllib
from pathlib import Path

import pytest
import yaml
from conftest import PINNED

from handbook.environment import RECORDED_PYTHON, SUPPORTED_PYTHONS, minor_version
from handbook.releases import recorded_releases
from handbook.versions import deploy_command

# Synthetic data: release names deployed and ordered in temporary trees (the pinned torch's index
# and environments read PINNED)


def test_version_names_and_latest_alias(tmp_path):
    for release in ("2.13.0", "2.14.1"):
        (tmp_path / "recordings" / f"torch-{release}").mkdir(parents=True)
        (tmp_path / "recordings" / f"torch-{release}" / "source-anchors.tsv").write_text("")
    assert minor_version("2.14.1+cu130") == "2.14"
    older, newer = deploy_command(tmp_path, "2.13.0"), deploy_command(tmp_path, "2.14.1")
    assert older[-2:] == ["torch 2.13", "2.13"] and "latest" not in older
    assert newer[-3:] == ["torch 2.14", "2.14", "latest"]


@pytest.mark.parametrize(
    "added, holds",
    [
        ("2.99.0", None),  # an empty directory is no release
        ("2.16.0rc1", "source-anchors.tsv"),  # a pre-release is recorded, and never latest
        ("99!1.0", "source-anchors.tsv"),  # an epoch: no torch release has one
        ("2.16.0+cpu", "source-anchors.tsv"),  # a local part names a build, not a release
        ("2.16", "source-anchors.tsv"),  # not as packaging writes 2.16.0
        ("2.16.0.", "x/a.txt"),
    ],
)
def test_a_release_directory_a_pull_request_adds_does_not_take_latest(tmp_path, added, holds):
    for release in ("2.14.1", "2.15.0"):
        (tmp_path / "recordings" / f"torch-{release}").mkdir(parents=True)
        (tmp_path / "recordings" / f"torch-{release}" / "source-anchors.tsv").write_text("")
    directory = tmp_path / "recordings" / f"torch-{added}"
    directory.mkdir()
    if holds:
        (directory / holds).parent.mkdir(exist_ok=True)
        (directory / holds).write_text("")
    assert "latest" in deploy_command(tmp_path, "2.15.0")
    assert recorded_releases(tmp_path)[:2] == ["2.14.1", "2.15.0"]
    assert set(recorded_releases(tmp_path)) <= {"2.14.1", "2.15.0", "2.16.0rc1"}


REPO = Path(__file__).resolve().parents[2]


def test_supported_releases_are_the_recorded_ones_and_ci_tests_every_one(supported):
    assert supported == recorded_releases(REPO)
    jobs = yaml.safe_load((REPO / ".github/workflows/docs.yml").read_text())["jobs"]
    # One job runs `make test`, which builds every supported edition (no TORCH= picks one).
    runs = [step["run"] for step in jobs["test"]["steps"] if "run" in step]
    assert [run for run in runs if run.startswith("make test")] == [
        f'make test "INDEX_{PINNED}=https://download.pytorch.org/whl/cpu"'
    ]
    assert "strategy" not in jobs["test"] and "test" in jobs["deploy"]["needs"]


def test_supported_pythons_are_one_list_in_the_makefile_the_project_and_ci():
    makefile = (REPO / "Makefile").read_text()
    assert tuple(re.search(r"^PYTHONS := (.+)$", makefile, re.MULTILINE)[1].split()) == SUPPORTED_PYTHONS
    project = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    lowest, highest = SUPPORTED_PYTHONS[0], SUPPORTED_PYTHONS[-1]
    assert project["requires-python"] == f">={lowest},<3.{int(highest.split('.')[1]) + 1}"
    workflow = yaml.safe_load((REPO / ".github/workflows/docs.yml").read_text())
    assert tuple(workflow["jobs"]["pythons"]["strategy"]["matrix"]["python"]) == SUPPORTED_PYTHONS
    # Every published edition is built with the Python its outputs are recorded with.
    for job in ("test", "deploy"):
        versions = {
            s["with"]["python-version"] for s in workflow["jobs"][job]["steps"] if "setup-python" in s.get("uses", "")
        }
        assert versions == {RECORDED_PYTHON}, job


@pytest.mark.parametrize("python", ["3.99", "2.7"])
def test_a_missing_or_unsupported_python_fails_before_anything_is_installed(python):
    venv = REPO / f".venv-{PINNED}-py{python}"
    result = subprocess.run(["make", "-C", str(REPO), "build", f"PY={python}"], capture_output=True, text=True)
    assert result.returncode != 0
    assert f"python{python}" in result.stderr and "3.11 3.12 3.13" in result.stderr, result.stderr
    assert not venv.exists()


def test_the_python_matrix_builds_the_latest_torch(supported):
    workflow = yaml.safe_load((REPO / ".github/workflows/docs.yml").read_text())
    assert workflow["jobs"]["pythons"]["env"]["TORCH"] == supported[-1]
