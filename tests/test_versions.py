"""mike deploys one version per torch release into a git branch; the newest carries `latest`."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

from handbook.environment import minor_version
from handbook.execution.recordings import recorded_releases
from handbook.versions import deploy_command


def git(root, *args):
    return subprocess.run(["git", *args], cwd=root, check=True, capture_output=True, text=True).stdout


def test_version_names_and_latest_alias(project):
    for release in ("2.13.0", "2.14.1"):
        (project.root / "recordings" / f"torch-{release}").mkdir(parents=True)
    assert minor_version("2.14.1+cu130") == "2.14"
    older, newer = deploy_command(project.root, "2.13.0"), deploy_command(project.root, "2.14.1")
    assert older[-2:] == ["torch 2.13", "2.13"] and "latest" not in older
    assert newer[-3:] == ["torch 2.14", "2.14", "latest"]


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


REPO = Path(__file__).resolve().parent.parent


def test_supported_releases_are_the_recorded_ones_and_the_ci_matrix(supported):
    assert supported == recorded_releases(REPO)
    workflow = (REPO / ".github/workflows/docs.yml").read_text()
    assert re.findall(r'^\s+- torch: "([\d.]+)"', workflow, re.MULTILINE) == supported


def test_make_versions_deploys_every_supported_release(tree_copy, supported):
    """The real deploy path: `make versions`, mike running the mkdocs script on this tree's pages,
    every block executed under it (execution cache off), each release against its own recordings."""
    result = tree_copy.make("versions", HANDBOOK_CACHE="0")
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
    for release in supported:
        report = json.loads(tree_copy.git("show", f"gh-pages:{minor_version(release)}/execution-report.json"))
        assert report["torch"].startswith(release)
        assert {block["status"] for block in report["blocks"]} <= {"ok", "gpu-missing", "gpu-recorded"}
