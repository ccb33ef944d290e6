"""mike deploys one version per torch release into a git branch; the newest carries `latest`."""

from __future__ import annotations

import json
import os
import re
import subprocess
import tomllib
from pathlib import Path
from urllib.parse import urlsplit

import pytest
import yaml
from conftest import DEPLOYED_URL, INSTALLED, PINNED
from site_links import Site

from handbook.environment import RECORDED_PYTHON, SUPPORTED_PYTHONS, minor_version
from handbook.execution.blocks import scan_docs
from handbook.execution.labs import lab_pages
from handbook.mkdocs_config import load_site_config
from handbook.releases import recorded_releases
from handbook.versions import NOT_FOUND_PAGE, deploy_command, tool_environment

# Synthetic data: release names deployed and ordered in temporary trees (the pinned torch's index
# and environments read PINNED)


def git(root, *args):
    return subprocess.run(["git", *args], cwd=root, check=True, capture_output=True, text=True).stdout


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


def test_two_versions_deploy_into_a_branch(deployed):
    project, _ = deployed
    versions = json.loads(git(project.root, "show", "gh-pages:versions.json"))
    assert [(v["version"], v["title"], v["aliases"]) for v in versions] == [
        ("2.14", "torch 2.14", ["latest"]),
        ("2.13", "torch 2.13", []),
    ]
    assert "url=latest/" in git(project.root, "show", "gh-pages:index.html")
    older = git(project.root, "show", "gh-pages:2.13/index.html")
    # The outdated banner is in every version's page; Material's script shows it on all but the default.
    assert 'data-md-component="outdated"' in older and "Read the latest version." in older


def test_the_branch_answers_missing_addresses_with_the_latest_versions_404_page(deployed):
    """GitHub Pages serves the branch's root 404.html at any missing address, at any depth: every
    address on it must be absolute, and name a file of the branch."""
    _, tree = deployed
    page = tree / NOT_FOUND_PAGE
    assert page.read_bytes() == (tree / "2.14" / NOT_FOUND_PAGE).read_bytes()
    site = Site(tree, DEPLOYED_URL)
    links = [link for link in site.page(page).links if not link.startswith("#")]  # a fragment: this page
    internal = [link for link in links if urlsplit(link).netloc in ("", urlsplit(DEPLOYED_URL).netloc)]
    relative = [link for link in internal if not link.startswith(("/", DEPLOYED_URL))]
    assert internal and not relative, f"relative addresses break below the root: {relative}"
    stylesheets = [link for link in internal if link.endswith(".css")]
    assert stylesheets and all(link.startswith("/handbook/2.14/") for link in stylesheets), stylesheets
    broken = {link: why for link in internal if (why := site.check(link, "a/b/c/"))}
    assert not broken


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


def test_make_versions_deploys_every_supported_release(tree_copy, supported):
    """The real deploy path: `make versions`, mike running the mkdocs script on this tree's pages,
    each release against its own recordings, with the caches the builds before it filled (as the
    CI deploy job restores its own): every block's run is checked again under mike, and a block
    that fails fails the deploy. (Each edition's strict build, which `make test` runs first,
    executed every block.)"""
    result = tree_copy.make("versions")
    blocks = sum(len(page.blocks) for page in scan_docs(tree_copy.root) + lab_pages(tree_copy.root))
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-4000:]
    versions = json.loads(tree_copy.git("show", "gh-pages:versions.json"))
    newest = minor_version(supported[-1])
    assert [(v["version"], v["title"], v["aliases"]) for v in versions] == [
        (
            minor_version(release),
            f"torch {minor_version(release)}",
            ["latest"] if minor_version(release) == newest else [],
        )
        for release in reversed(supported)
    ]
    assert "url=latest/" in tree_copy.git("show", "gh-pages:index.html")
    assert tree_copy.git("show", f"gh-pages:{NOT_FOUND_PAGE}") == tree_copy.git(
        "show", f"gh-pages:{newest}/{NOT_FOUND_PAGE}"
    )
    for release in supported:
        report = json.loads(tree_copy.git("show", f"gh-pages:{minor_version(release)}/execution-report.json"))
        assert report["torch"].startswith(release)
        assert {block["status"] for block in report["blocks"]} <= {"ok", "cached", "gpu-missing", "gpu-recorded"}
        assert len(report["blocks"]) == blocks, release  # every block of the tree, in each edition
    # The Chinese edition: every release under zh/, a selector of its own (zh/versions.json), and each
    # page's language menu leading to the same page of the same edition, a file of the branch.
    chinese_versions = json.loads(tree_copy.git("show", "gh-pages:zh/versions.json"))
    assert [(v["version"], v["aliases"]) for v in chinese_versions] == [(v["version"], v["aliases"]) for v in versions]
    assert "url=latest/" in tree_copy.git("show", "gh-pages:zh/index.html")
    english_url, chinese_url = (
        load_site_config(REPO / "mkdocs.yml").site_url,
        load_site_config(REPO / "mkdocs.zh.yml").site_url,
    )
    for release in supported:
        minor = minor_version(release)
        report = json.loads(tree_copy.git("show", f"gh-pages:zh/{minor}/execution-report.json"))
        assert report["torch"].startswith(release) and len(report["blocks"]) == blocks, release
        chinese = tree_copy.git("show", f"gh-pages:zh/{minor}/tensors/index.html")
        english = tree_copy.git("show", f"gh-pages:{minor}/tensors/index.html")
        assert f'href="{english_url}{minor}/tensors/" hreflang="en"' in chinese, release
        assert f'href="{chinese_url}{minor}/tensors/" hreflang="zh"' in english, release
        tree_copy.git("cat-file", "-e", f"gh-pages:zh/{minor}/notebooks/tensors.ipynb")


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


IDENTITY = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@t"}


def _repository(project) -> None:
    for command in (["git", "init", "-q", "-b", "main"], ["git", "commit", "-q", "--allow-empty", "-m", "start"]):
        subprocess.run(command, cwd=project.root, env={**os.environ, **IDENTITY}, check=True, capture_output=True)


def test_a_render_only_deploy_is_refused(project):
    project.write("docs/index.md", "# Home\n\nHello.\n")
    _repository(project)
    result = project.run("-m", "handbook", "deploy", "--config", "mkdocs.yml", env={"HANDBOOK_EXECUTE": "0"})
    assert result.returncode == 1 and "HANDBOOK_EXECUTE=0 builds render-only" in result.stderr
    assert git(project.root, "branch", "--list", "gh-pages") == ""


def test_a_deploy_whose_site_fails_the_check_is_undone(project):
    """A site a generator built without the handbook plugin (its blocks run by no engine): mike commits it,
    the deploy checks what was committed, and puts the branch back."""
    project.write("docs/index.md", "# Home\n\nHello.\n")
    project.write(f"recordings/torch-{INSTALLED}/source-anchors.tsv", "")
    config = project.root / "mkdocs.yml"
    config.write_text(config.read_text().replace("  - handbook:\n      sections_exempt: [index.md]\n", ""))
    _repository(project)
    result = project.run("-m", "handbook", "deploy", "--config", "mkdocs.yml", env={**tool_environment(), **IDENTITY})
    assert result.returncode == 1, result.stdout + result.stderr
    assert "execution-report.json is missing" in result.stderr and "gh-pages is back where it was" in result.stderr
    assert git(project.root, "branch", "--list", "gh-pages") == ""
