"""`python -m handbook <command>`: the maintainers' commands, each wiring the two halves.

    execute        run and check every page for the installed torch: what `mkdocs build` then renders
    goldens        re-record every block's output and every source link's lines
    source-index   rewrite source-index/torch-<release>.txt from the installed torch
    drift-report   what the installed torch changes against the nearest recorded release
    deploy         publish this torch's build as one mike version (local gh-pages branch)
    check-site     fail unless a built site was made by the handbook plugin from this tree, every block passing
    translations   list the translated sections that no longer translate their original; --mark PAGE records
                   that PAGE's translation is up to date

The Makefile runs them (`make goldens`, `make source-index`, `make new-release`,
`make versions`); each acts on the torch installed in the running environment.
"""

from __future__ import annotations

import argparse
import platform
import subprocess
import sys
import tempfile
from pathlib import Path

from handbook import labs, languages, switches
from handbook.checks import changed_on_of, outdated_labs, outdated_translations
from handbook.environment import RECORDED_PYTHON, installed_torch, minor_version, python_minor
from handbook.errors import InputError, failed_command
from handbook.execution.goldens import record
from handbook.languages import deploy_prefix
from handbook.log_text import escaped
from handbook.prebuild import prepare
from handbook.reports.drift import drift_report
from handbook.reports.execution_report import site_problems
from handbook.site_config import SiteConfig
from handbook.sources.index import write_index
from handbook.sources.links import source_anchors
from handbook.translations import marked
from handbook.tree_files import DOCS_DIR, read_text, write_atomically
from handbook.versions import (
    NOT_FOUND_PAGE,
    branch_commit,
    carries_latest,
    deploy_command,
    publish_not_found_page,
    published_site,
    restore_branch,
    tool_environment,
)


def site_config(args: argparse.Namespace, config: str) -> SiteConfig:
    """A configuration of the site under `--root`, as MkDocs reads it: MkDocs' own loader, imported only
    by the commands that need it (`python -m handbook` itself loads no site generator)."""
    from handbook.mkdocs_config import load_site_config

    return load_site_config(args.root / config)


def execute(args: argparse.Namespace) -> int:
    edition = prepare(args.root, site_config(args, args.config), reuse=False, settings=args.settings)
    for line in edition.log:
        print(escaped(line), file=sys.stderr)
    for problem in edition.problems:
        print(escaped(f"error: {problem}"), file=sys.stderr)
    return 1 if edition.problems else 0


def goldens(args: argparse.Namespace) -> int:
    anchors = None if args.gpu_only else source_anchors(args.root, args.docs_dir).anchors  # no execution: every page's
    pages = set(args.page) if args.page else None
    return record(args.root, args.docs_dir, pages, args.gpu_only, anchors, settings=args.settings)


def source_index(args: argparse.Namespace) -> int:
    print(f"wrote {write_index(args.root)}")
    return 0


def drift(args: argparse.Namespace) -> int:
    output = args.output or args.root / "drift" / f"torch-{installed_torch().release}.md"
    report, summary = drift_report(args.root, args.docs_dir, args.settings)
    write_atomically(output, report)
    print(f"{summary}\nreport: {output}")
    return 0


def deploy(args: argparse.Namespace) -> int:
    python = python_minor(platform.python_version())
    if python != RECORDED_PYTHON:
        print(
            f"error: editions are published as built with Python {RECORDED_PYTHON}, the Python their outputs are "
            f"recorded with; this is Python {python} (deploy without PY=)",
            file=sys.stderr,
        )
        return 1
    if not args.settings.execute:
        print(
            f"error: {switches.EXECUTE}=0 builds render-only, with no block run: such a build is never published; "
            "deploy without it",
            file=sys.stderr,
        )
        return 1
    release = installed_torch().release
    before = branch_commit(args.root, args.branch)
    for config in args.configs or languages.CONFIGS:  # one build per language, each under its own prefix of the branch
        prefix = deploy_prefix(site_config(args, config).language).rstrip("/")
        command = deploy_command(args.root, release, args.branch, config, prefix)
        print(" ".join(command))
        deployed = subprocess.run(command, cwd=args.root, env=tool_environment()).returncode
        if deployed != 0:
            return deployed
        if problems := _published_problems(args, "/".join(filter(None, [prefix, minor_version(release)]))):
            restore_branch(args.root, args.branch, before)
            for problem in problems:
                print(f"error: {problem}", file=sys.stderr)
            print(f"error: nothing was published: {args.branch} is back where it was", file=sys.stderr)
            return 1
    if carries_latest(args.root, release):  # the default version's 404 answers for the whole site
        publish_not_found_page(args.root, minor_version(release), args.branch)
        print(f"{NOT_FOUND_PAGE} at the root of {args.branch}: torch {minor_version(release)}'s")
    return deployed


def _published_problems(args: argparse.Namespace, path: str) -> list[str]:
    """What `check-site` finds in the version just committed to the branch (its blocks all ran, or came
    from a verified store, in a build of this tree)."""
    with tempfile.TemporaryDirectory() as scratch:
        site = published_site(args.root, args.branch, path, Path(scratch))
        return site_problems(site, args.root, args.docs_dir)


def translations(args: argparse.Namespace) -> int:
    config = site_config(args, args.config)
    if not config.translates:
        print(
            f"error: {args.config} builds no translation (its handbook plugin names no `translates`)", file=sys.stderr
        )
        return 1
    for page in args.mark or []:
        if page.endswith(".py"):  # a lab: `tensors.py` or `labs/tensors.py`
            print(mark_lab(args.root, config.language, page.rpartition("/")[2]))
            continue
        original = read_text(args.root / config.translates / page, f"{config.translates}/{page}")
        translated_file = args.root / config.docs_dir / page
        write_atomically(translated_file, marked(original, read_text(translated_file, f"{config.docs_dir}/{page}")))
        print(f"{config.docs_dir}/{page}: marked as translating {config.translates}/{page} as it is now")
    outdated = outdated_translations(args.root, config) + outdated_labs(args.root, config)
    for section in outdated:
        date = changed_on_of(args.root, config, section)
        lab = labs.lab_of_page(section.page)
        where = f"{labs.labs_dir(config.language)}/{lab}" if lab else f"{config.docs_dir}/{section.page}"
        print(f"{where} § {section.section}: {section.reason}; English changed on {date}")
    print(f"{len(outdated)} outdated section(s) in {config.docs_dir}/ and {labs.labs_dir(config.language)}/")
    return 1 if args.check and outdated else 0


def mark_lab(root: Path, language: str, lab: str) -> str:
    """Record the translated lab `lab` as translating its original as it is now; says what it did."""
    from handbook.execution.labs import read_lab

    original_dir, translated_dir = labs.labs_dir(languages.DEFAULT), labs.labs_dir(language)
    original_file, translated_file = f"{original_dir}/{lab}", f"{translated_dir}/{lab}"
    original = labs.prose(read_text(root / original_file, original_file), read_lab(root, original_dir, lab))
    text = read_text(root / translated_file, translated_file)
    translated = labs.prose(text, read_lab(root, translated_dir, lab))
    write_atomically(root / translated_file, labs.marked(original, text, translated))
    return f"{translated_file}: marked as translating {original_file} as it is now"


def check_site(args: argparse.Namespace) -> int:
    problems = site_problems(args.site.resolve(), args.root, args.docs_dir)
    for problem in problems:
        print(f"error: {problem}", file=sys.stderr)
    return 1 if problems else 0


def parser() -> argparse.ArgumentParser:
    main = argparse.ArgumentParser(
        prog="python -m handbook", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    main.add_argument(
        "--root", default=Path("."), type=lambda text: Path(text).resolve(), help="the handbook's directory"
    )
    main.add_argument("--docs-dir", default=DOCS_DIR)
    commands = main.add_subparsers(dest="command", required=True)
    executor = commands.add_parser("execute", help="run and check every page; a build then renders what it recorded")
    executor.add_argument("--config", default=languages.CONFIGS[0], help="the site's configuration, under --root")
    executor.set_defaults(run=execute)
    recorder = commands.add_parser(
        "goldens", help="re-record outputs and source anchors; changes nothing if a block fails"
    )
    recorder.add_argument("--page", action="append", help="record only this page (path under docs/); may repeat")
    recorder.add_argument(
        "--gpu-only",
        action="store_true",
        help="record only the GPU-only blocks, with device, torch and date (needs CUDA)",
    )
    recorder.set_defaults(run=goldens)
    commands.add_parser("source-index", help="rewrite the installed torch's source index").set_defaults(
        run=source_index
    )
    reporter = commands.add_parser(
        "drift-report", help="write the drift report of the installed torch; records nothing"
    )
    reporter.add_argument("--output", type=Path, help="where to write the report (default: drift/torch-<release>.md)")
    reporter.set_defaults(run=drift)
    deployer = commands.add_parser("deploy", help="deploy this torch's build as one mike version")
    deployer.add_argument("--branch", default="gh-pages")
    deployer.add_argument(
        "--config", dest="configs", action="append", help="a language's configuration (default: every language's)"
    )
    deployer.set_defaults(run=deploy)
    translator = commands.add_parser("translations", help="list outdated translated sections; --mark PAGE")
    translator.add_argument(
        "--config", default=languages.TRANSLATIONS[0].config, help="the translation's configuration"
    )
    translator.add_argument("--mark", action="append", help="record PAGE (path under its docs_dir) as up to date")
    translator.add_argument("--check", action="store_true", help="exit 1 if any section is outdated")
    translator.set_defaults(run=translations)
    checker = commands.add_parser("check-site", help="fail unless SITE is the handbook plugin's build of this tree")
    checker.add_argument("site", type=Path)
    checker.set_defaults(run=check_site)
    return main


def main() -> int:
    args = parser().parse_args()
    args.root = args.root.resolve()
    try:
        args.settings = switches.read()  # the switches, read once: every command is given them
        return args.run(args)
    except InputError as error:  # bad input: its message names the place
        print(escaped(f"error: {error}"), file=sys.stderr)
        return 1
    except subprocess.CalledProcessError as failed:  # a tool the command ran: what it was and what it said
        print(f"error: {failed_command(failed)}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
