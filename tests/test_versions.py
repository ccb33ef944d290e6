"""mike deploys one version per torch release into a git branch; the newest carries `latest`."""

from __future__ import annotations

import json
import subprocess

from handbook.versions import deploy_command, version_of


def git(root, *args):
    return subprocess.run(["git", *args], cwd=root, check=True, capture_output=True, text=True).stdout


def test_version_names_and_latest_alias(project):
    for release in ("2.13.0", "2.14.1"):
        (project.root / "recordings" / f"torch-{release}").mkdir(parents=True)
    assert version_of("2.14.1") == "2.14"
    older, newer = deploy_command(project.root, "2.13.0"), deploy_command(project.root, "2.14.1")
    assert older[-2:] == ["torch 2.13", "2.13"] and "latest" not in older
    assert newer[-3:] == ["torch 2.14", "2.14", "latest"]


def test_two_versions_deploy_into_a_branch(deployed):
    project, _ = deployed
    versions = json.loads(git(project.root, "show", "gh-pages:versions.json"))
    assert [(v["version"], v["title"], v["aliases"]) for v in versions] == [("2.14", "torch 2.14", ["latest"]), ("2.13", "torch 2.13", [])]
    assert 'url=latest/' in git(project.root, "show", "gh-pages:index.html")
    older = git(project.root, "show", "gh-pages:2.13/index.html")
    # The outdated banner is in every version's page; Material's script shows it on all but the default.
    assert 'data-md-component="outdated"' in older and "Read the latest version." in older
