"""Shared fixtures: the repository, and small throwaway handbook projects to break."""

from __future__ import annotations

import fcntl
import os
import pickle
import re
import shutil
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from handbook.environment import installed_torch
from handbook.execution.cache import CACHE_DIR_VARIABLES

# Synthetic data: the deployed fixture deploys a tiny handbook under two release names (mike reads
# only the names)

REPO = Path(__file__).resolve().parent.parent

PROJECT_CONFIG = """
site_name: test handbook
docs_dir: docs
site_dir: site
theme: mkdocs
plugins:
  - handbook:
      sections_exempt: [index.md]
  - markdown-exec:
      languages: [python, py]
markdown_extensions:
  - admonition
  - attr_list
  - md_in_html
  - pymdownx.snippets:
      base_path: ["."]
      check_paths: true
      dedent_subsections: true
  - pymdownx.superfences
"""


def checkout_environment() -> dict[str, str]:
    """A build started in another directory imports this checkout's `handbook`, not the one
    the environment has installed (an editable install may point at another checkout)."""
    return {"PYTHONPATH": os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")]))}


class Project:
    """A minimal handbook in a temporary directory, built like the real one."""

    def __init__(self, root: Path):
        self.root = root
        (root / "docs").mkdir(parents=True)
        (root / "snippets").mkdir()
        (root / "mkdocs.yml").write_text(PROJECT_CONFIG)
        shutil.copytree(REPO / "source-index", root / "source-index")

    @classmethod
    def copy_of(cls, other: Project, root: Path) -> Project:
        """A copy of `other` (its recordings and the caches its runs filled) at `root`."""
        shutil.copytree(other.root, root, symlinks=True)
        project = cls.__new__(cls)
        project.root = root
        return project

    def write(self, relative: str, text: str) -> Path:
        path = self.root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip("\n"))
        return path

    def environment(self, **env: str) -> dict[str, str]:
        # Its caches are its own, under HANDBOOK_CACHE_DIR, even where this process has set
        # torch's cache locations (the pipeline, run in-process by other tests, does).
        inherited = {key: value for key, value in os.environ.items() if key not in CACHE_DIR_VARIABLES}
        return {
            **inherited,
            **checkout_environment(),
            "NO_MKDOCS_2_WARNING": "1",
            "HANDBOOK_CACHE_DIR": str(self.root / ".cache"),
            **env,
        }

    def run(self, *args: str, env: dict[str, str] | None = None, python: str = sys.executable):
        return subprocess.run(
            [python, *args],
            cwd=self.root,
            env=self.environment(**(env or {})),
            capture_output=True,
            text=True,
            timeout=600,
        )

    def build(self, python: str = sys.executable, **env: str) -> subprocess.CompletedProcess:
        return self.run("-m", "mkdocs", "build", env=env, python=python)

    def goldens(self, python: str = sys.executable, **env: str) -> subprocess.CompletedProcess:
        return self.run("-m", "handbook", "goldens", env=env, python=python)

    def recordings(self) -> dict[str, str]:
        base = self.root / "recordings"
        return (
            {p.relative_to(base).as_posix(): p.read_text() for p in sorted(base.rglob("*.txt"))}
            if base.exists()
            else {}
        )


def seconds_in_fresh_interpreter(source: str, give_up_after: float = 120) -> float:
    """Run `source`, which prints the seconds its own work took, in a new interpreter of this
    checkout (a runaway regular expression cannot be interrupted in-process); fail the test
    if it has not finished after `give_up_after` seconds."""
    started = time.perf_counter()
    command = [sys.executable, "-c", textwrap.dedent(source)]
    try:
        result = subprocess.run(
            command,
            cwd=REPO,
            env={**os.environ, **checkout_environment()},
            capture_output=True,
            text=True,
            timeout=give_up_after,
        )
    except subprocess.TimeoutExpired:
        result = None
    if result is None:
        pytest.fail(f"still running after {give_up_after:g} s (stopped)", pytrace=False)
    assert result.returncode == 0, result.stderr
    print(f"{float(result.stdout):.2f} s of work, {time.perf_counter() - started:.2f} s with the interpreter")
    return float(result.stdout)


def once_per_run(tmp_path_factory, name: str, make):
    """`make()`'s value, made once per test run however the tests that ask for it are spread: under
    pytest-xdist, by the first worker that asks (the others wait for it, then read it, pickled beside
    the workers' temporary directories, which are this run's alone)."""
    if not os.environ.get("PYTEST_XDIST_WORKER"):
        return make()
    stored = tmp_path_factory.getbasetemp().parent / f"{name}.pickle"
    with open(stored.with_suffix(".lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if stored.is_file():
            return pickle.loads(stored.read_bytes())
        value = make()
        stored.write_bytes(pickle.dumps(value))
        return value


@pytest.fixture
def timed():
    """`timed(source)`: the seconds that `source` says its work took, in a fresh interpreter."""
    return seconds_in_fresh_interpreter


DEPLOYED_URL = "https://handbook.invalid/handbook/"  # where the `deployed` fixture's site says it is


@pytest.fixture
def project(tmp_path: Path) -> Project:
    return Project(tmp_path / "handbook")


@pytest.fixture
def deployed(project) -> tuple[Project, Path]:
    """A tiny handbook, with the site's theme and styles, deployed with mike as torch 2.13 and
    torch 2.14 (latest); returns the gh-pages tree."""
    from handbook.versions import deploy_command, publish_not_found_page, tool_environment

    project.write("docs/index.md", "# Home\n\nHello.\n")
    config = (
        (project.root / "mkdocs.yml")
        .read_text()
        .replace("theme: mkdocs", "theme:\n  name: material\n  custom_dir: overrides")
    )
    config += f"site_url: {DEPLOYED_URL}\n"  # mike makes each version's its own directory under it
    config += "extra_css:\n  - assets/handbook.css\n"  # the site's own styles: its focus rings and palette
    (project.root / "mkdocs.yml").write_text(
        config + "extra:\n  version:\n    provider: !ENV [HANDBOOK_VERSION_PROVIDER, '']\n    default: latest\n"
    )
    shutil.copytree(REPO / "overrides", project.root / "overrides")
    shutil.copytree(REPO / "docs" / "assets", project.root / "docs" / "assets")
    for release in ("2.13.0", "2.14.1"):  # recorded releases: each holds its source anchors
        project.write(f"recordings/torch-{release}/source-anchors.tsv", "")
    identity = {
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@t",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@t",
    }
    env = {
        **tool_environment(),
        **checkout_environment(),
        **identity,
        "NO_MKDOCS_2_WARNING": "1",
        "HANDBOOK_CACHE_DIR": str(project.root / ".cache"),
    }

    def run(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run(args, cwd=project.root, env=env, check=True, capture_output=True, text=True)

    run("git", "init", "-q", "-b", "main")
    run("git", "commit", "-q", "--allow-empty", "-m", "start")
    for release in ("2.13.0", "2.14.1"):
        command = deploy_command(project.root, release)
        run(*command)
    publish_not_found_page(project.root, "2.14")  # as `python -m handbook deploy` does for the latest
    run(command[0], "set-default", "latest")
    tree = project.root.parent / "gh-pages"
    tree.mkdir()
    archive = subprocess.run(["git", "archive", "gh-pages"], cwd=project.root, check=True, capture_output=True).stdout
    subprocess.run(["tar", "-x", "-C", str(tree)], input=archive, check=True)
    return project, tree


# The releases the tests read, never spell (`tests/unit/test_pinned_release.py`): the Makefile's supported
# ones, oldest first, the pinned one (`make` with no TORCH=), and the one installed where the tests
# run (the pinned one under `make test`), which a project the tests build is run and recorded with.
MAKEFILE = (REPO / "Makefile").read_text()
SUPPORTED = re.search(r"^SUPPORTED := (.+)$", MAKEFILE, re.MULTILINE)[1].split()
PINNED = re.search(r"^TORCH \?= (\S+)$", MAKEFILE, re.MULTILINE)[1]
INSTALLED = installed_torch().release


def venv_of(release: str) -> str:
    """The environment `make TORCH=<release>` uses (the Makefile's rule)."""
    return ".venv" if release == PINNED else f".venv-{release}"


class TreeCopy:
    """This tree as it is now (tracked and new files) in a repository of its own, with the
    environments that `make` created linked in, to run real `make` targets on."""

    def __init__(self, root: Path):
        self.root = root
        listed = subprocess.run(
            ["git", "ls-files", "-co", "--exclude-standard"], cwd=REPO, check=True, capture_output=True, text=True
        ).stdout
        for name in listed.splitlines():
            if (REPO / name).is_file():
                (root / name).parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(REPO / name, root / name)
        for release in SUPPORTED:
            (root / venv_of(release)).symlink_to(REPO / venv_of(release), target_is_directory=True)
        identity = ["-c", "user.name=t", "-c", "user.email=t@t"]
        self.git("init", "-q", "-b", "main")
        self.git("add", "-A")
        self.git(*identity, "commit", "-q", "-m", "tree under test")

    def git(self, *args: str) -> str:
        return subprocess.run(["git", *args], cwd=self.root, check=True, capture_output=True, text=True).stdout

    def make(self, *targets: str, **env: str) -> subprocess.CompletedProcess:
        """`make` with the linked environments taken as they are (never rebuilt through the link),
        and this copy's own handbook package first on the path."""
        keep = [flag for release in SUPPORTED for flag in ("-o", f"{venv_of(release)}/.installed")]
        environment = {
            **os.environ,
            "PYTHONPATH": str(self.root),
            "HANDBOOK_CACHE_DIR": str(REPO / ".cache/handbook"),
            "GIT_AUTHOR_NAME": "t",
            "GIT_AUTHOR_EMAIL": "t@t",
            "GIT_COMMITTER_NAME": "t",
            "GIT_COMMITTER_EMAIL": "t@t",
            **env,
        }
        return subprocess.run(
            ["make", *targets, *keep], cwd=self.root, env=environment, capture_output=True, text=True, timeout=1800
        )


@pytest.fixture(scope="session")
def supported() -> list[str]:
    """The Makefile's SUPPORTED releases, oldest first."""
    return SUPPORTED


@pytest.fixture
def tree_copy(tmp_path: Path) -> TreeCopy:
    missing = [release for release in SUPPORTED if not (REPO / venv_of(release) / ".installed").exists()]
    if missing:
        pytest.fail(
            f"no environment for torch {', '.join(missing)}: `make test` builds every supported release before "
            f"the tests (`make build TORCH={missing[0]}` builds one)",
            pytrace=False,
        )
    return TreeCopy(tmp_path / "tree")


@pytest.fixture(scope="session")
def browser():
    """Debian's Chromium under Playwright, installed if missing; where it cannot be, the browser
    tests fail saying why (`make test` runs them: a machine that cannot is not one it supports)."""
    from site_browser import CHROMIUM, CHROMIUM_ARGS, ensure_chromium

    reason = ensure_chromium()
    if reason:
        pytest.fail(f"the browser tests need Chromium at {CHROMIUM}: {reason}", pytrace=False)
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        instance = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield instance
        instance.close()


@pytest.fixture(scope="session")
def extensions_dir(tmp_path_factory) -> Path:
    """TORCH_EXTENSIONS_DIR for the snippets and notebooks run on their own: one for this test run's
    worker, apart from the build's (never waiting on the build's lock), so that each C++ extension is
    compiled cold once a worker rather than once a test; torch's own lock in it keeps two compiles of
    one extension apart."""
    return tmp_path_factory.mktemp("torch_extensions")


@pytest.fixture(scope="session")
def site_url():
    """The built site/ served on localhost."""
    from site_browser import SITE, served_site

    with served_site(SITE) as url:
        yield url


# The two layers, by folder: tests/unit/ builds no site, runs no page and starts no build (seconds, `make
# test-fast`); tests/site/ holds everything that does, and is marked `full` here. A test under tests/unit/
# that asks for a fixture that builds a project or reads a built site (these build, run pages or open
# Chromium) fails its module's collection, naming the fixture, so the unit layer stays what it says.
TESTS = Path(__file__).resolve().parent
SITE_LAYER = TESTS / "site"
UNIT_LAYER = TESTS / "unit"
FULL_FIXTURES = {"project", "recorded", "deployed", "tree_copy", "browser", "site_url", "zh_site_url"}


def pytest_addoption(parser):
    parser.addoption(
        "--all-notebooks",
        action="store_true",
        help="run every chapter's notebook top to bottom in a kernel, not one (`make notebooks`)",
    )


@pytest.hookimpl(wrapper=True)
def pytest_pycollect_makeitem(collector, name, obj):
    made = yield
    if Path(str(collector.path)).is_relative_to(UNIT_LAYER):
        for item in made if isinstance(made, list) else [made]:
            asked = sorted(FULL_FIXTURES & set(getattr(item, "fixturenames", ())))
            if asked:
                raise collector.CollectError(
                    f"{name} uses {', '.join(asked)}: a test under tests/unit/ builds no site and reads none; "
                    "move it to tests/site/ (tests/conftest.py, FULL_FIXTURES)"
                )
    return made


def pytest_collection_modifyitems(config, items):
    for item in items:
        if Path(str(item.path)).is_relative_to(SITE_LAYER):
            item.add_marker(pytest.mark.full)
    # The full layer first (a test of it runs for seconds to a minute), the unit layer last: the
    # workers then end together, on tests of milliseconds, not one on a notebook while one waits.
    items.sort(key=lambda item: item.get_closest_marker("full") is None)
