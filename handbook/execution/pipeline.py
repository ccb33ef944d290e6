"""Executing the handbook: scan the pages, reuse cached pages, run the rest, check recordings.

This is the one entry point that the execute step (`handbook.prebuild`), the pytest items and the
`goldens` command share, so an example fails the same way in all three.
"""

from __future__ import annotations

import functools
import os
import re
import shutil
import time
from dataclasses import fields
from pathlib import Path

from handbook import switches
from handbook.environment import Environment, Machine, cache_root, gpu_possible, installed_torch, this_platform
from handbook.execution import confinement, page_settings, runner
from handbook.execution.blocks import Block, BlockError, Page, scan_docs
from handbook.execution.cache import ExecutionCache, cache_key, check_cache_root
from handbook.execution.figures import FigureError, build_font_cache, sanitise
from handbook.execution.labs import CORRECT, lab_pages, verdict
from handbook.execution.measurements import broken_claims, masked
from handbook.execution.normalise import normalise
from handbook.execution.page_history import FILE_NAME as HISTORY_FILE
from handbook.execution.page_history import PageHistory
from handbook.execution.recordings import Recordings, unified_diff
from handbook.execution.results import BlockResult, BlockRun, CorruptEntry, SiteRun
from handbook.execution.runner import BlockJob, PageJob
from handbook.execution.status import Status
from handbook.execution.tree_guard import TreeGuard, git_directories
from handbook.releases import nearest_release
from handbook.switches import SettingError
from handbook.tree_files import DOCS_DIR

# c++, g++, cc and gcc, each running the real compiler when no other page is compiling.
COMPILERS = Path(__file__).parent / "compilers"


def prepare_page_processes(root: Path, settings: switches.Settings | None = None) -> None:
    """Settings every page process inherits (`page_settings.SETTINGS`), in this process's environment;
    before the fork server starts. Their directories, and the compile lock, exist before a page's
    mounts are made; matplotlib's font cache is built (building it prints a line, and takes seconds)."""
    applied = page_settings.apply(cache_root(root, settings), installed_torch().version)
    for name in page_settings.CACHES:
        Path(os.environ[name]).mkdir(parents=True, exist_ok=True)
    build_font_cache(Path(os.environ["MPLCONFIGDIR"]))
    if lock := applied[switches.COMPILE_LOCK]:  # "": compiles run as they come
        Path(lock).parent.mkdir(parents=True, exist_ok=True)
        Path(lock).touch()
    # The compilers' wrappers, where util-linux's flock exists (not on macOS: there compiles run as they come).
    path = os.environ.get("PATH", "").split(os.pathsep)
    if str(COMPILERS) not in path and shutil.which("flock"):
        os.environ["PATH"] = os.pathsep.join([str(COMPILERS), *path])


@functools.cache
def page_environment(root: Path) -> Environment:
    """What page processes run on, known once per process: read from the installed torch, and
    asked of a page process only where a GPU may exist (page processes must be prepared first)."""
    identity = installed_torch()
    return Environment(**runner.probe_environment(root)) if gpu_possible(identity) else Environment.of(identity)


def _job(page: Page, cuda: bool, settings: switches.Settings) -> PageJob:
    blocks = []
    for b in page.blocks:
        try:
            timeout, memory = runner.block_timeout(b.options, settings), runner.block_memory(b.options)
        except SettingError as error:
            raise BlockError(f"{page.file}:{b.page_line} (block {b.index}): {error}") from error
        blocks.append(
            BlockJob(
                b.code,
                b.origin_file,
                b.origin_line,
                timeout,
                run=cuda or b.device != "cuda",
                memory=memory,
                figure=b.figure,
            )
        )
    return PageJob(page.path, blocks)


def recorded_site(root: Path, pages: list[Page]) -> SiteRun:
    """Render-only: show the recordings, run nothing (`HANDBOOK_EXECUTE=0`, for previews and `make bench`)."""
    env = Environment.of(installed_torch())
    recordings = Recordings(root, env.release, python=env.python, platform=this_platform())
    site = SiteRun(env, pages, platform=recordings.platform, platform_recorded=recordings.has_platform)
    for page in pages:
        site.results[page.path] = [
            BlockResult(
                Status.RECORDED,
                recordings.read(b) or "",
                figure=recordings.read_figure(b) or "",
                block=b,
                recording=recordings.relative(recordings.path(b)),
            )
            if b.device != "cuda"
            else check(b, BlockRun(Status.SKIPPED), recordings, cuda=False)
            for b in page.blocks
        ]
    return site


def run_site(
    root: Path,
    pages: list[Page],
    cache: ExecutionCache,
    workers: int | None = None,
    only: set[str] | None = None,
    serving: bool = False,
    given: dict[str, list[BlockRun]] | None = None,
    settings: switches.Settings | None = None,
) -> SiteRun:
    """Execute `pages` (or those named in `only`), reusing cached pages, and check every block.

    `serving` (`mkdocs serve`): a change to the tree while pages ran is most likely the writer's
    own edit, so it is reported (`SiteRun.tree_changed`) rather than raised; nothing of the runs
    it may have touched is cached, and the rebuild it triggers runs them again. `given`: runs
    kept by an earlier execute step, used as cached ones are (and checked as they are)."""
    started = time.perf_counter()
    settings = settings or switches.read()
    env = page_environment(root)
    cuda = env.has_cuda
    selected = [page for page in pages if page.blocks and (only is None or page.path in only)]
    history = PageHistory(cache_root(root, settings) / HISTORY_FILE)
    own = Recordings(root, env.release, python=env.python, platform=this_platform())
    recordings, compared_with = _recordings_to_check(own, selected)
    # Where pages cannot be given a read-only view, what they could forge is guarded too.
    guard = TreeGuard(root, [] if confinement.expected(settings) else guarded_stores(root, cache, env, settings))
    files = {page.path: page.file for page in selected}  # what the guard's findings name
    keys = {page.path: cache_key(page, env) for page in selected}
    refused: list[str] = []
    runs, to_run = _cached_runs(selected, cache, keys, cuda, given or {}, refused, settings)

    def finished(page_path: str, page_runs: list[BlockRun], peak: int) -> None:
        for run in page_runs:
            run.output = normalise(run.output, root)
            run.error = normalise(run.error, root)
        unfinished.discard(page_path)
        beside = [files[page] for page in sorted(unfinished)]
        theirs = [path for page in {page_path, *unfinished} for path in runner.compile_caches(page).values()]
        if guard.unchanged(files[page_path], beside, theirs):  # nothing is kept from a run that changed the tree
            if stored := cache.store(keys[page_path], page_runs):
                guard.accept(stored)
        runs[page_path] = page_runs
        history.update(page_path, sum(run.seconds for run in page_runs), peak)

    # Longest pages first: with one worker per core, the build ends when the slowest page does.
    to_run.sort(key=lambda job: history.expected_seconds(job.page), reverse=True)
    unfinished = {job.page for job in to_run}  # the pages that may be running, should the tree change

    def check_tree(ran: list[str]) -> list[str]:
        ran = [files[page] for page in ran]
        if not serving:
            guard.raise_if_changed(ran)
        return guard.look_last(ran)

    runner.run_pages(to_run, root, workers=workers, on_done=finished, peaks=history.peaks, settings=settings)
    history.save()
    site = SiteRun(
        env,
        pages,
        executed_pages=[job.page for job in to_run],
        compared_with=compared_with,
        python_recorded=own.has_overlay,
        platform=own.platform,
        platform_recorded=own.has_platform,
        tree_changed=check_tree([job.page for job in to_run]),
        refused=refused,
    )

    def check_pages(checked: list[Page]) -> None:
        for page in checked:
            site.results[page.path] = [
                check(block, run, recordings, cuda) for block, run in zip(page.blocks, runs[page.path], strict=True)
            ]
            check_predictions(site.results[page.path])

    check_pages(selected)

    # A drift in a run reused from the cache may be a stale entry, and a missed claim a noisy
    # measurement: such a page runs once more, fresh, before the build fails on it; so does a
    # given page that fails at all (the execute step records only passing pages). (Against a
    # neighbouring release's recordings, drift is what the report is for.)
    def worth_running_again(page: Page) -> bool:
        results = site.results[page.path]
        return any(r.worth_running_again or (page.path in given_pages and not r.passed) for r in results)

    given_pages = set(given or {})
    again = [page for page in selected if not site.compared_with and worth_running_again(page)]
    for page in again:
        from_record = page.path in given_pages and page.path not in site.executed_pages  # not run afresh already
        if from_record and (failed := [r for r in site.results[page.path] if not r.passed]):
            refused.append(f"the execute step's record: {failed[0].block.label}: its stored run fails its checks")
    if again:
        unfinished.update(page.path for page in again)
        jobs = [_job(page, cuda, settings) for page in again]
        runner.run_pages(jobs, root, workers=workers, on_done=finished, peaks=history.peaks, settings=settings)
        history.save()
        site.tree_changed = check_tree([page.path for page in again])
        site.executed_pages += [page.path for page in again if page.path not in site.executed_pages]
        check_pages(again)
        for page in again:
            for result in site.results[page.path]:
                result.ran_again = True
    if only is None and not site.compared_with:
        site.stale = [recordings.relative(path) for path in recordings.stale(pages)]
    site.seconds = time.perf_counter() - started
    return site


def edition_name(env: Environment) -> str:
    """What one build's own stores are kept under: its torch release and Python (`2.13.0-py3.11`)."""
    return f"{env.release}-py{env.python_minor}"


def guarded_stores(
    root: Path, cache: ExecutionCache, env: Environment, settings: switches.Settings | None = None
) -> list[Path]:
    """What a build believes of earlier builds (this edition's stored runs, the execute step's record, the
    source-symbol answers for this torch, every page's compile caches) and the git directories: guarded
    where pages could write them (a page's own compile caches are its to write while it runs)."""
    caches = cache_root(root, settings)
    runs = caches / "runs" / f"{edition_name(env)}.json"
    compiled = [Path(base) for kind in runner.COMPILE_CACHES if (base := os.environ.get(runner.PAGE_VARIABLES[kind]))]
    return [cache.directory, runs, caches / "symbols" / env.git_version, *compiled, *git_directories(root)]


def _cached_runs(
    pages: list[Page],
    cache: ExecutionCache,
    keys: dict[str, str],
    cuda: bool,
    given: dict[str, list[BlockRun]],
    refused: list[str] | None = None,
    settings: switches.Settings | None = None,
) -> tuple[dict[str, list[BlockRun]], list[PageJob]]:
    """The runs of the pages given or held by the cache, each checked to be what a run of its block
    could be (`stored_runs`; why one is not, in `refused`), and the jobs of those that are not."""
    settings = settings or switches.read()  # once, not once a page
    runs: dict[str, list[BlockRun]] = {}
    to_run: list[PageJob] = []
    for page in pages:
        found = stored_runs(page, given.get(page.path), cuda, cached=False, refused=refused)
        if found is None:
            stored = cache.load(keys[page.path], len(page.blocks))
            found = stored_runs(page, stored, cuda, cached=True, refused=refused)
        if found is None:
            to_run.append(_job(page, cuda, settings))
        else:
            runs[page.path] = found
    return runs, to_run


def stored_runs(
    page: Page, stored: list[BlockRun] | None, cuda: bool, cached: bool, refused: list[str] | None = None
) -> list[BlockRun] | None:
    """A page's stored runs (the execution cache's, `cached`, or the execute step's record) as its blocks'
    runs, or None where any is not what a run of its block could have been: a store is not believed for
    its word (a page, or anyone, may have written it). Why not, appended to `refused`."""
    if stored is None or len(stored) != len(page.blocks):
        return None
    try:
        return [stored_run(block, run, cuda, cached) for block, run in zip(page.blocks, stored, strict=True)]
    except CorruptEntry as error:
        if refused is not None:
            store = "the execution cache" if cached else "the execute step's record"
            refused.append(f"{store}: {error}")
        return None


def stored_run(block: Block, run: BlockRun, cuda: bool, cached: bool) -> BlockRun:
    """`run` as `block`'s, checked: a block that runs here ran to its end (its status says so, its
    figure is sanitised again, its machine is one); a GPU-only block without a GPU was not run, and
    shows nothing of its own. CorruptEntry for anything else."""
    if block.device == "cuda" and not cuda:
        if run.status not in {Status.SKIPPED, Status.GPU_RECORDED, Status.GPU_MISSING}:
            raise CorruptEntry(f"{block.label}: a GPU-only block stored as {run.status.value}")
        return BlockRun(Status.SKIPPED)
    if not run.status.ran:
        raise CorruptEntry(f"{block.label}: stored as {run.status.value}, which no run here ends in")
    figure = ""
    if block.figure:
        try:
            figure = sanitise(run.figure.encode())
        except FigureError as error:
            raise CorruptEntry(f"{block.label}: its stored figure: {error}") from None
    elif run.figure:
        raise CorruptEntry(f"{block.label}: a figure stored for a block that draws none")
    machine = run.machine
    if machine and not (set(machine) == set(MACHINE) and all(type(machine[k]) is t for k, t in MACHINE.items())):
        raise CorruptEntry(f"{block.label}: a stored machine that is none")
    status = Status.CACHED if cached or run.status == Status.CACHED else Status.OK
    return BlockRun(status, run.output, run.error, run.seconds, dict(machine), list(map(str, run.leftovers)), figure)


MACHINE = {field.name: {"str": str, "int": int}[str(field.type)] for field in fields(Machine)}  # what a machine holds


def _recordings_to_check(own: Recordings, pages: list[Page]) -> tuple[Recordings, str | None]:
    """The recordings `pages` are checked against, read before any page runs (a block that
    rewrote its own recording would otherwise pass): this release's, or where it has none,
    the nearest release's, which is named."""
    recordings, compared_with = own, None
    if not own.exists and nearest_release(own.root, own.release):
        compared_with = nearest_release(own.root, own.release)
        recordings = own.with_changes(release=compared_with)
    recordings.remember(pages)
    return recordings, compared_with


def check(block: Block, run: BlockRun, recordings: Recordings, cuda: bool) -> BlockResult:
    """Compare one block's run with its recording."""
    path = recordings.relative(recordings.path(block))
    result = BlockResult.of(block, run, from_cache=run.status == Status.CACHED, recording=path)
    if block.device == "cuda":
        result.gpu = recordings.read_gpu(block)
        if not cuda:
            result.status = Status.GPU_RECORDED if result.gpu else Status.GPU_MISSING
            result.output = result.gpu.output if result.gpu else ""
            return result
        recorded = result.gpu.output if result.gpu else None
    else:
        recorded = recordings.read(block)
    if not run.status.ran:
        return result
    # A lab's check must say `correct` to its solution and reject each mistake, whatever is recorded.
    if wrong := verdict(block, run.output):
        result.status = Status.CHECK_REJECTS if block.options.get("expects") == CORRECT else Status.CHECK_ACCEPTS
        result.error = wrong
        return result
    # Claims first: a value that misses its claim, or cannot be read as one, is never recorded,
    # whether or not a recording exists and whatever else changed.
    if broken := broken_claims(run.output, machine.capability if (machine := result.ran_on) else ""):
        result.status = Status.CLAIM
        result.error = "\n".join(broken) + f"\nmeasured on {machine.describe() if machine else '?'}"
    elif recorded is None:
        result.status = Status.UNRECORDED
        result.error = f"no recording at {path}; run `make goldens` to record it"
    elif masked(recorded) != masked(run.output):  # measured values are checked by their claims, above
        result.status = Status.DRIFT
        result.error = unified_diff(masked(recorded), masked(run.output), path)
    if block.figure and result.status.has_output:
        _check_figure(result, recordings)
    return result


FIGURE_DIFF_LINES = 40  # a figure's diff says where it changed; the whole SVG is one `git diff` away


def _check_figure(result: BlockResult, recordings: Recordings) -> None:
    """A figure is checked like the output: a figure that differs from its recording is a drift of its block."""
    block = result.block
    path = recordings.relative(recordings.figure_path(block))
    recorded = recordings.read_figure(block)
    if recorded is None:
        result.status = Status.UNRECORDED
        result.error = "\n".join(filter(None, [result.error, f"no figure recorded at {path}; run `make goldens`"]))
    elif recorded != result.figure.rstrip("\n"):
        diff = unified_diff(recorded, result.figure.rstrip("\n"), path).splitlines()
        if len(diff) > FIGURE_DIFF_LINES:
            diff = [*diff[:FIGURE_DIFF_LINES], f"... ({len(diff) - FIGURE_DIFF_LINES} more diff lines)"]
        said = f"the figure {block.figure!r} changed (its recording is {path}):"
        result.status = Status.DRIFT
        result.error = "\n".join(filter(None, [result.error, said, *diff]))


PREDICTION_LINE = re.compile(r"^\s*(?P<name>[^:\n]+?)\s*:\s*(?P<value>.*?)\s*$", re.MULTILINE)


def check_predictions(results: list[BlockResult]) -> None:
    """A block with `predicts="<GPU block id>"` prints `name: value` lines that the GPU block's
    recording must repeat, line for line by name, once a GPU recording exists."""
    by_id = {result.block.id: result for result in results}
    for result in results:
        target_id = result.block.options.get("predicts")
        if not target_id or not result.passed:
            continue
        target = by_id.get(target_id)
        if target is None or target.block.device != "cuda":
            result.status, result.error = (
                Status.MISPREDICTED,
                f"predicts={target_id!r}: the page has no GPU-only block with that id",
            )
            continue
        result.predicted = target
        if target.gpu is None:
            continue  # nothing recorded on a GPU yet: nothing to compare
        measured = {m["name"]: m["value"] for m in PREDICTION_LINE.finditer(target.gpu.output)}
        wrong = [
            f"{m['name']}: predicted {m['value']}, recorded {measured.get(m['name'], '(no such line)')}"
            for m in PREDICTION_LINE.finditer(result.output)
            if measured.get(m["name"]) != m["value"]
        ]
        if wrong:
            result.status = Status.MISPREDICTED
            result.error = (
                f"the GPU recording of {target_id!r} ({target.gpu.device}, {target.gpu.date}) differs from this "
                "prediction:\n" + "\n".join(wrong)
            )


def execute(
    root: Path,
    docs_dir: str = DOCS_DIR,
    cache_enabled: bool | None = None,
    workers: int | None = None,
    only: set[str] | None = None,
    serving: bool = False,
    given: dict[str, list[BlockRun]] | None = None,
    pages: list[Page] | None = None,
    settings: switches.Settings | None = None,
) -> SiteRun:
    """Scan `docs_dir` and the labs (unless its `pages` are given, scanned already) and run them: the
    whole pipeline with the default cache. `settings`: the switches, as the caller's entry read them
    (read here when none are given)."""
    settings = settings or switches.read()
    if cache_enabled is None:
        cache_enabled = settings.cache
    pages = scan_docs(root, docs_dir, only) + lab_pages(root, only=only) if pages is None else pages
    if not settings.execute:
        return recorded_site(root, pages)
    check_cache_root(cache_root(root, settings))
    prepare_page_processes(root, settings)
    env = page_environment(root)
    cache = ExecutionCache(cache_root(root, settings) / "exec" / edition_name(env), cache_enabled)
    return run_site(root, pages, cache, workers=workers, only=only, serving=serving, given=given, settings=settings)
