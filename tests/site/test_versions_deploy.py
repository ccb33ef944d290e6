"""mike's deploys, run: versions into a branch, its 404 page, an undone failed deploy, and the real
`make versions` over every supported release."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from conftest import DEPLOYED_URL, INSTALLED
from site_links import Site

from handbook.environment import minor_version
from handbook.execution.blocks import scan_docs
from handbook.execution.labs import lab_pages
from handbook.mkdocs_config import load_site_config
from handbook.versions import NOT_FOUND_PAGE, tool_environment


def git(root, *args):
    return subprocess.run(["git", *args], cwd=root, check=True, capture_output=True, text=True).stdout


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


@pytest.mark.timeout(1200)  # two MkDocs builds through mike
def test_make_versions_deploys_the_latest_release_in_both_languages(tree_copy, supported):
    """The real deploy path: `make versions`, mike running the mkdocs script on this tree's pages,
    against the latest release's recordings, in its own environment, with the caches the builds
    before it filled (as the CI deploy job restores its own): every block's run is checked again
    under mike, and a block that fails fails the deploy. One release, not all of them: what differs
    from one release to the next is its build, which `make test` ran strictly for each release
    before the tests; several versions in one branch, their titles and the `latest` alias are
    `deployed`'s (two releases, the same deploy code) and test_two_versions_deploy_into_a_branch's.
    The CI deploy job runs `make versions` over every release."""
    latest = supported[-1]
    result = tree_copy.make("versions", f"SUPPORTED={latest}")
    blocks = sum(len(page.blocks) for page in scan_docs(tree_copy.root) + lab_pages(tree_copy.root))
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-4000:]
    supported = [latest]
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
