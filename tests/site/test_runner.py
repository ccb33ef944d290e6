"""The runner in-process: one zygote for the whole module."""

from __future__ import annotations

import itertools
import os
import pickle
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import psutil
import pytest
from conftest import INSTALLED
from probes import REFUSED

from handbook.environment import minor_version
from handbook.execution import runner, zygote
from handbook.execution.runner import (
    BlockJob,
    PageJob,
    block_memory,
    block_timeout,
    interpreter_search_path,
    limits,
    next_to_start,
    parse_size,
    run_pages,
)
from handbook.switches import SettingError

REPO = Path(__file__).resolve().parents[2]


def run(*codes: str, timeout: float = 30) -> list:
    return run_pages([PageJob("p", [BlockJob(code, "docs/p.md", 1, timeout) for code in codes])], REPO)["p"]


def test_blocks_share_one_namespace_and_capture_every_fd_write():
    runs = run(
        "x = 2\nprint('py', x)",
        "import os, ctypes\nos.write(1, b'fd1\\n')\nos.write(2, b'fd2\\n')\nctypes.CDLL(None).printf(b'from C\\n')",
    )
    assert [r.status for r in runs] == ["ok", "ok"]
    assert runs[0].output == "py 2\n"
    assert runs[1].output.split("\n")[:3] == ["fd1", "fd2", "from C"]


def test_warnings_are_shown_once_per_place():
    output = run("import warnings\nfor _ in range(3):\n    warnings.warn('careful')")[0].output
    assert output.count("UserWarning: careful") == 1


def test_torch_starts_fresh_with_one_thread_and_seed_zero():
    output = run("import torch\nprint(torch.get_num_threads(), torch.initial_seed())")[0].output
    assert output == "1 0\n"


@pytest.mark.parametrize(
    "code, status, message",
    [
        ("raise KeyError('k')", "raised", "KeyError: 'k'"),
        ("raise SystemExit(2)", "exit", "sys.exit(2)"),
        ("import os\nos._exit(5)", "exited", "exited with code 5"),
        ("import ctypes\nctypes.string_at(0)", "crashed", "SIGSEGV"),
        ("import time\ntime.sleep(30)", "timeout", "timeout of 1 s"),
        ("import os\nos.write(1, b'y' * (65 * 2**20))", "output", "printed more than 64 MiB"),
    ],
)
def test_failures_are_told_apart_and_stop_the_page(code, status, message):
    runs = run("print('first')", code + "\n", "print('never')", timeout=1 if status == "timeout" else 30)
    assert runs[0].status == "ok"
    assert runs[1].status == status and message in runs[1].error
    assert runs[2].status == "not-run"


def test_a_block_past_its_timeout_shows_where_it_was_and_what_it_waited_for():
    """A hang on a build machine is read from the failure: the page's Python stacks, and the
    processes its block started with their state and what the kernel has them waiting in."""
    code = (
        "import subprocess, time\n"
        "child = subprocess.Popen(['sleep', '300'])\n"
        "def waiting_here():\n"
        "    time.sleep(300)\n"
        "waiting_here()"
    )
    runs = run(code, "print('never')", timeout=2)
    assert runs[0].status == "timeout"
    assert "most recent call first" in runs[0].output and "in waiting_here" in runs[0].output
    assert "its threads' Python stacks are in its output" in runs[0].error
    assert re.search(r"^\d+ sleeping( in \w+)?: sleep 300$", runs[0].error, re.M), runs[0].error
    assert runs[1].status == "not-run"


def test_a_block_that_keeps_printing_is_stopped_before_its_timeout():
    runs = run("import sys\nwhile True:\n    sys.stdout.write('x' * 2**20)", "print('never')", timeout=60)
    assert (
        runs[0].status == "output" and "printed more than 64 MiB" in runs[0].error and "it was killed" in runs[0].error
    )
    assert runs[0].seconds < 60 and len(runs[0].output) == runner.MAX_OUTPUT_BYTES
    assert runs[1].status == "not-run"


def test_output_before_a_crash_is_kept():
    runs = run("print('before', flush=True)\nimport ctypes\nctypes.string_at(0)")
    assert runs[0].status == "crashed" and runs[0].output == "before\n"


def test_pages_run_in_parallel_and_results_keep_their_page():
    """Each page says when it started and ended (the system's monotonic clock, one for every
    process): with two workers, a page starts before another has ended."""
    code = "import time; start = time.monotonic(); time.sleep(1); print('{name}', start, time.monotonic())"
    jobs = [PageJob(name, [BlockJob(code.format(name=name), "docs/p.md", 1, 30)]) for name in "abcd"]
    results = run_pages(jobs, REPO, workers=2)
    said = {page: runs[0].output.split() for page, runs in results.items()}
    assert {page: words[0] for page, words in said.items()} == {n: n for n in "abcd"}
    spans = sorted((float(words[1]), float(words[2])) for words in said.values())
    assert any(later[0] < earlier[1] for earlier, later in itertools.pairwise(spans))


def test_pages_start_together_only_within_the_heaviest_pages_peak():
    pending = [PageJob(name, []) for name in ("heavy", "mid", "small", "new")]
    peaks = {"heavy": 1000, "mid": 600, "small": 400}
    assert next_to_start(pending, [], peaks) == 0  # nothing running: any page
    assert next_to_start(pending[1:], ["heavy"], peaks) == 2  # only the unmeasured one
    assert next_to_start(pending[2:], ["mid"], peaks) == 0  # 600 + 400 <= 1.1 * 1000
    assert next_to_start(pending[1:2], ["mid"], peaks) is None  # 1200 > 1100
    assert next_to_start(pending, ["a", "b"], {}) == 0  # nothing measured yet: as before
    assert next_to_start([], [], peaks) is None


def test_a_page_measured_as_the_heaviest_runs_alone_and_each_page_is_told_its_peak(tmp_path, monkeypatch):
    # Told by files, not by clocks, so that a loaded machine cannot break it: the heavy page marks
    # its end; each light one marks its start, waits (up to 60 s) for the other's, and says what it saw.
    monkeypatch.setenv("HANDBOOK_PAGE_WRITABLE", str(tmp_path))
    heavy = f"import pathlib, time; time.sleep(0.3); pathlib.Path({str(tmp_path)!r}, 'heavy-ended').touch()"
    light = (
        "import pathlib, time\nmarks = pathlib.Path({marks!r})\n"
        "after_heavy = (marks / 'heavy-ended').exists()\n(marks / '{name}-started').touch()\n"
        "deadline = time.monotonic() + 60\n"
        "while not (marks / '{other}-started').exists() and time.monotonic() < deadline:\n    time.sleep(0.01)\n"
        "print(after_heavy, (marks / '{other}-started').exists())"
    )

    def page(name, code):
        return PageJob(name, [BlockJob(code, "docs/p.md", 1, 120)])

    told = {}
    results = run_pages(
        [
            page("heavy", heavy),
            page("a", light.format(marks=str(tmp_path), name="a", other="b")),
            page("b", light.format(marks=str(tmp_path), name="b", other="a")),
        ],
        REPO,
        workers=2,
        peaks={"heavy": 3 * 2**30, "a": 2**30, "b": 2**30},
        on_done=lambda name, runs, peak: told.update({name: peak}),
    )
    assert results["heavy"][0].status == "ok", results["heavy"][0].error
    # Each light page started after the heavy one ended (alone, first: the order given), and saw the
    # other start while it waited (the two light ones together).
    assert [results[name][0].output for name in ("a", "b")] == ["True True\n", "True True\n"]
    assert set(told) == {"heavy", "a", "b"} and all(peak > 2**20 for peak in told.values())


def test_timeout_comes_from_the_block_then_the_environment(monkeypatch):
    monkeypatch.setenv("DOCS_BLOCK_TIMEOUT", "7")
    assert block_timeout({}) == 7
    assert block_timeout({"timeout": "300"}) == 300
    monkeypatch.delenv("DOCS_BLOCK_TIMEOUT")
    assert block_timeout({}) == 120
    with pytest.raises(SettingError, match="timeout='soon' is not a number of seconds"):
        block_timeout({"timeout": "soon"})


def test_sizes_are_powers_of_1024():
    assert parse_size("512M", "x") == 512 * 2**20
    assert parse_size("2G", "x") == parse_size("2 GiB", "x") == parse_size("2gb", "x") == 2 * 2**30
    assert parse_size("1.5G", "x") == 3 * 2**29
    assert block_memory({"memory": "4G"}) == 4 * 2**30 and block_memory({}) is None
    for bad in ("2", "lots", "-1G", "2X"):
        with pytest.raises(SettingError, match=f"memory='{re.escape(bad)}' is not a size such as 512M or 2G"):
            block_memory({"memory": bad})


GiB = 2**30


@pytest.mark.parametrize(
    "available, cores, setting, workers, page_memory",
    [
        (32 * GiB, 4, None, 4, 6 * GiB),  # one page per core; each shares the usable memory
        (6 * GiB, 8, None, 2, 2.25 * GiB),  # fewer pages than cores where memory is short
        (2 * GiB, 4, None, 1, 1.5 * GiB),
        (32 * GiB, 16, "6G", 4, 6 * GiB),  # as many pages as fit at the page limit
        (4 * GiB, 4, "8G", 1, 8 * GiB),
    ],
)
def test_workers_and_page_memory_come_from_cores_and_memory(
    monkeypatch, available, cores, setting, workers, page_memory
):
    monkeypatch.setattr(runner, "available_memory", lambda: available)
    monkeypatch.setattr(runner, "usable_cores", lambda: cores)
    if setting:
        monkeypatch.setenv("DOCS_PAGE_MEMORY", setting)
    else:
        monkeypatch.delenv("DOCS_PAGE_MEMORY", raising=False)
    chosen = limits()
    assert (chosen.workers, chosen.page_memory) == (workers, int(page_memory))
    assert limits(workers=1).workers == 1


@pytest.mark.skipif(sys.platform != "linux", reason="CPU affinity (taskset) is Linux's")
def test_pages_run_one_at_a_time_on_one_allowed_core():
    """A build under `taskset -c 0` (or in a one-core cpuset) counts the cores it may use, not the machine's."""
    if not shutil.which("taskset"):
        pytest.fail("taskset is not installed: install util-linux", pytrace=False)
    code = "from handbook.execution.runner import limits; print(limits().workers)"
    pinned = subprocess.run(["taskset", "-c", "0", sys.executable, "-c", code], capture_output=True, text=True)
    assert pinned.stdout.strip() == "1", pinned.stderr


def test_a_bad_page_memory_setting_names_itself(monkeypatch):
    monkeypatch.setenv("DOCS_PAGE_MEMORY", "plenty")
    with pytest.raises(SettingError, match="DOCS_PAGE_MEMORY='plenty' is not a size"):
        limits()


# 2 GiB, touched, in 64 MiB steps, then held: a page limited to 1 GiB is stopped on the way.
ALLOCATION = "import time, torch\nchunks = [torch.ones(2**24) for _ in range(32)]\nprint('allocated')\ntime.sleep(3)"


def test_a_page_past_its_memory_limit_is_stopped(monkeypatch):
    monkeypatch.setenv("DOCS_PAGE_MEMORY", "1G")
    job = PageJob(
        "p",
        [
            BlockJob("print('first')", "docs/p.md", 1, 30),
            BlockJob(ALLOCATION, "docs/p.md", 3, 30),
            BlockJob("print(1)", "docs/p.md", 9, 30),
        ],
    )
    raised = PageJob(
        "q", [BlockJob("print('first')", "docs/q.md", 1, 30), BlockJob(ALLOCATION, "docs/q.md", 3, 30, memory=3 * GiB)]
    )
    results = run_pages([job, raised], REPO)
    first, allocation, after = results["p"]
    assert first.status == "ok" and after.status == "not-run"
    assert allocation.status == "memory" and "allocated" not in allocation.output
    assert "past the page's limit of 1 GiB (DOCS_PAGE_MEMORY), and were killed" in allocation.error
    assert [r.status for r in results["q"]] == ["ok", "ok"]


def test_page_processes_do_not_see_the_launch_directory():
    output = run("import sys\nprint(sys.path)")[0].output
    assert eval(output) == list(interpreter_search_path())
    assert str(REPO) not in interpreter_search_path() and "" not in interpreter_search_path()


# A block that makes torch print one of its C++-style log lines from a module of its own:
# torch names that module relative to the first `sys.path` entry holding it.
LOGGING_PAGE = """
# Demo

## A torch log line

See [TensorImpl](pytorch:c10/core/TensorImpl.h#TensorImpl).

```python exec="on"
import logging, tempfile
import torch
import torch.utils.cpp_extension as extension
logging.getLogger("torch.utils.cpp_extension").warning("from %s, in %s", extension.__file__, tempfile.mkdtemp())
```
"""

PYTEST_LAUNCH = """
from pathlib import Path

from handbook.execution.pipeline import execute
from handbook.execution.failures import failure_report


def test_pages_match_their_recordings():
    site = execute(Path(__file__).parent)
    assert site.ok, failure_report(site)
"""


def environment_inside(target: Path) -> Path:
    """This environment, hard-linked into `target` (a real directory, as `make` creates it), with
    its scripts pointing at the new interpreter; returns its bin/."""
    subprocess.run(["cp", "-al", sys.prefix, str(target)], check=True)
    old, new = f"#!{sys.prefix}/bin/python", f"#!{target}/bin/python"
    for script in (target / "bin").iterdir():
        if script.is_file() and not script.is_symlink() and script.read_bytes().startswith(old.encode()):
            text = script.read_text()
            script.unlink()  # a new file: the hard link is shared with the original environment
            script.write_text(text.replace(old, new, 1))
            script.chmod(0o755)
    return target / "bin"


@pytest.mark.parametrize("layout", ["environment outside the tree", "environment inside the tree"])
def test_recordings_do_not_depend_on_how_the_build_was_launched(project, layout):
    """Record once, then check through every way a build is started, the execution cache off."""
    project.write("docs/index.md", LOGGING_PAGE)
    project.write("test_launch.py", PYTEST_LAUNCH)
    bin_dir = Path(sys.executable).parent
    if layout == "environment inside the tree":
        bin_dir = environment_inside(project.root / ".venv")
    python = str(bin_dir / "python")
    env = project.environment(
        HANDBOOK_CACHE="0",
        PATH=f"{bin_dir}{os.pathsep}{os.environ['PATH']}",
        GIT_AUTHOR_NAME="t",
        GIT_AUTHOR_EMAIL="t@t",
        GIT_COMMITTER_NAME="t",
        GIT_COMMITTER_EMAIL="t@t",
    )

    def launch(*command: str) -> None:
        result = subprocess.run(command, cwd=project.root, env=env, capture_output=True, text=True, timeout=600)
        assert result.returncode == 0, f"{' '.join(command)}:\n{result.stdout[-3000:]}\n{result.stderr[-3000:]}"

    launch(python, "-m", "handbook", "goldens")
    recorded = project.recordings()
    assert re.fullmatch(
        r"W docs/index\.md:\d+\] from <site-packages>/torch/utils/cpp_extension\.py, in <tmp>\n",
        recorded[f"torch-{INSTALLED}/index/block-1.txt"],
    )
    launch(python, "-m", "mkdocs", "build")
    launch(str(bin_dir / "mkdocs"), "build")
    launch(str(bin_dir / "pytest"), "-q", "-p", "no:cacheprovider", "test_launch.py")
    launch("git", "init", "-q", "-b", "main")
    launch("git", "commit", "-q", "--allow-empty", "-m", "start")
    launch(str(bin_dir / "mike"), "deploy", "--branch", "gh-pages", minor_version(INSTALLED))
    assert project.recordings() == recorded


def test_memory_shared_between_forks_is_counted_once(monkeypatch):
    """Six idle forks of a page share torch's pages with it: their resident memory sums to more
    than 1 GiB, what they hold together (PSS) is a fraction of that."""
    monkeypatch.setenv("DOCS_PAGE_MEMORY", "1G")
    forks = (
        "import os, time\nchildren = []\nfor _ in range(6):\n    pid = os.fork()\n    if pid == 0:\n"
        "        time.sleep(2)\n        os._exit(0)\n    children.append(pid)\ntime.sleep(1)\n"
        "for pid in children:\n    os.waitpid(pid, 0)\nprint('six forks ended')"
    )
    runs = run(forks)
    assert runs[0].status == "ok", runs[0].error
    assert runs[0].output == "six forks ended\n"


def test_a_page_memory_of_zero_is_refused(monkeypatch):
    monkeypatch.setenv("DOCS_PAGE_MEMORY", "0K")
    with pytest.raises(SettingError, match="DOCS_PAGE_MEMORY='0K' is not a size"):
        limits()


@pytest.mark.parametrize("ending", ["ends", "times out"])
def test_a_page_working_directory_is_removed_when_the_page_ends(ending):
    code = (
        "import os\nwith open('kept.bin', 'wb') as kept:\n    kept.write(b'x' * 2**20)\nprint(os.getcwd(), flush=True)"
    )
    runs = run(code + ("\nimport time\ntime.sleep(30)" if ending == "times out" else ""), timeout=2)
    assert runs[0].status == ("ok" if ending == "ends" else "timeout")
    directory = runs[0].output.split()[0]
    assert os.path.basename(directory).startswith("page-") and not os.path.exists(directory)


def test_a_block_that_closes_the_page_pipe_fails_at_once_and_names_it():
    """The block closes every file descriptor it inherited, the page's pipe to the build with them,
    and runs on: the build does not wait for it (nor past its timeout), and says what happened."""
    started = time.monotonic()
    runs = run("import os, time\nos.closerange(3, 65536)\ntime.sleep(30)", "print('never')", timeout=20)
    assert time.monotonic() - started < 10
    assert runs[0].status == "crashed" and "closed the page process's socket to the build" in runs[0].error
    assert runs[1].status == "not-run"


DATASET = """
import torch
from torch.utils.data import DataLoader, Dataset

class Squares(Dataset):
    def __len__(self):
        return 6

    def __getitem__(self, index):
        return torch.tensor(index * index)

loader = DataLoader(Squares(), batch_size=2, num_workers=2)
"""


def test_a_page_can_run_a_data_loader_with_worker_processes():
    runs = run(DATASET + "for batch in loader:\n    print(batch.tolist())")
    assert runs[0].status == "ok", runs[0].error + runs[0].output
    assert runs[0].output == "[0, 1]\n[4, 9]\n[16, 25]\n"
    assert runs[0].leftovers == []


def test_data_loader_workers_left_running_are_killed_with_the_page_and_named():
    runs = run(DATASET + "batches = iter(loader)\nprint(next(batches).tolist())\nimport os\nprint(os.getpid())")
    assert runs[0].status == "ok", runs[0].error + runs[0].output
    page = int(runs[0].output.split()[-1])
    assert len(runs[0].leftovers) == 2
    assert not psutil.pid_exists(page) or psutil.Process(page).status() == psutil.STATUS_ZOMBIE


# A block speaking for its page: it finds the page's socket to the build and writes frames of its own.
FORGE = """
import json, os, struct

def is_socket(fd: str) -> bool:
    try:
        return os.readlink(f"/proc/self/fd/{fd}").startswith("socket:")
    except OSError:  # listdir's own descriptor, closed since
        return False

socket_fd = next(int(fd) for fd in os.listdir("/proc/self/fd") if is_socket(fd))

def send(frame: bytes) -> None:
    os.write(socket_fd, struct.pack("!I", len(frame)) + frame)

def say(**message) -> None:
    send(json.dumps(message).encode())
"""


class _RunsInTheBuild:
    """What the engine once unpickled: an object whose unpickling runs code in the build's process."""

    def __init__(self, marker: str):
        self.marker = marker

    def __reduce__(self):
        return (os.mkdir, (self.marker,))


@pytest.mark.parametrize(
    "forgery, said",
    [
        ("send(PICKLED)", "not JSON"),
        ("say(kind='start', index=0, capture='/etc/hostname')", "fields"),
        ("say(kind='start', index=1)", "a 'start' message it could not have sent then"),
        ("say(kind='machine', cpu='Apple M9', arch='arm64', capability='AVX2', threads=1)", "no message kind"),
        ("say(kind='done', index=0, status='gpu-missing', error='', spawned=[])", "'done' message it could not"),
        ("os.write(socket_fd, struct.pack('!I', 2**31))", "more than"),
    ],
)
def test_a_block_that_speaks_for_its_page_fails_and_nothing_it_sent_runs_or_is_read(tmp_path, forgery, said):
    marker = tmp_path / "ran in the build"
    pickled = pickle.dumps(_RunsInTheBuild(str(marker)))
    code = FORGE + f"PICKLED = {pickled!r}\nprint('before')\n{forgery}\nimport time\ntime.sleep(5)"
    runs = run("print('first')", code, "print('never')")
    assert [r.status for r in runs] == ["ok", "forged", "not-run"]
    assert said in runs[1].error and "a block may not speak for its page" in runs[1].error
    assert runs[1].output == "before\n"  # the engine's own capture file, not the path the block named
    assert not marker.exists()


def test_the_machine_a_block_ran_on_is_the_zygotes_observation_not_the_pages():
    forged = "say(kind='machine', cpu='Apple M9', arch='arm64', capability='AVX2', threads=1)"
    runs = run("print(1)", FORGE + forged)
    import torch  # the test's own reading of the machine

    assert runs[0].machine["capability"] == torch.backends.cpu.get_cpu_capability()
    assert runs[0].machine["threads"] == 1
    assert runs[1].status == "forged" and runs[1].machine == runs[0].machine


def test_a_block_that_says_its_page_finished_early_leaves_its_later_blocks_failing():
    code = FORGE + (
        "say(kind='done', index=0, status='ok', error='', spawned=[os.getppid()])\n"
        "say(kind='late', held=[])\nsay(kind='leftovers', killed=[])\nsay(kind='finished')\n"
        "import time\ntime.sleep(5)"
    )
    runs = run(code, "print('never')")
    assert runs[0].status == "forged" and "'late' message it could not have sent then" in runs[0].error
    assert psutil.pid_exists(os.getpid())  # the pid it named (the zygote's) was never the engine's to kill


def test_a_frame_left_half_sent_does_not_hold_the_build_past_the_blocks_timeout():
    started = time.monotonic()
    runs = run(FORGE + "os.write(socket_fd, struct.pack('!I', 100) + b'{')\nimport time\ntime.sleep(60)", timeout=2)
    assert runs[0].status == "timeout" and time.monotonic() - started < 20


def test_each_page_compiles_into_caches_of_its_own_which_no_other_page_can_write(monkeypatch, tmp_path):
    """What one page compiled (Inductor's generated modules, an extension) no other page reads, nor, where
    pages get a read-only view, can write: a page cannot make another print what it injected."""
    for name, kind in (("TORCHINDUCTOR_CACHE_DIR", "inductor"), ("TORCH_EXTENSIONS_DIR", "extensions")):
        monkeypatch.setenv(name, str(tmp_path / kind))
    mine = (
        "import os\ncache = os.environ['TORCHINDUCTOR_CACHE_DIR']\n"
        "with open(os.path.join(cache, 'kernel.py'), 'w') as kernel:\n    kernel.write('x')\nprint(cache)"
    )
    poison = (
        "import os\nfrom pathlib import Path\n"
        "for victim in Path(os.environ['TORCHINDUCTOR_CACHE_DIR']).parent.iterdir():\n"
        "    try:\n        (victim / 'kernel.py').write_text('print(\"injected\")')\n"
        "        print('wrote', victim.name)\n"
        "    except OSError as refused:\n        print('refused', refused.strerror)"
    )
    results = run_pages([PageJob("victim/page.md", [BlockJob(mine, "docs/victim/page.md", 1, 30)])], REPO) | run_pages(
        [PageJob("attacker.md", [BlockJob(poison, "docs/attacker.md", 1, 30)])], REPO
    )
    victim = Path(results["victim/page.md"][0].output.strip())
    assert victim.parent == tmp_path / "inductor" and victim.name.startswith("victim_page-")
    said = results["attacker.md"][0].output.splitlines()
    if REFUSED is None:
        assert "refused Read-only file system" in said and (victim / "kernel.py").read_text() == "x"
    assert sorted(p.name for p in (tmp_path / "inductor").iterdir()) == sorted(
        [victim.name, runner.compile_cache_name("attacker.md")]
    )


def test_a_pages_temporary_files_are_its_own_and_go_with_it():
    code = "import os, tempfile\nfd, path = tempfile.mkstemp()\nos.write(fd, b'x' * 2**20)\nprint(path)"
    path = run(code)[0].output.strip()
    assert "/handbook-build-" in path and "-tmp/" in path
    assert not os.path.exists(path) and not os.path.exists(os.path.dirname(path))


def test_a_block_that_stops_the_zygote_fails_its_page_and_the_build_goes_on():
    stop = "import os, signal, time\nos.kill(os.getppid(), signal.SIGSTOP)\ntime.sleep(30)"
    started = time.monotonic()
    results = run_pages([PageJob("stopper.md", [BlockJob(stop, "docs/stopper.md", 1, 60)])], REPO) | run_pages(
        [PageJob("after.md", [BlockJob("print('after')", "docs/after.md", 1, 30)])], REPO
    )
    assert time.monotonic() - started < 40
    (stopper,) = results["stopper.md"]
    assert stopper.status == "crashed" and "its zygote) was stopped (SIGSTOP) while this page ran" in stopper.error
    assert results["after.md"][0].output == "after\n"


SHM = (
    "import os\nwith open('/dev/shm/handbook-test-{n}', 'wb') as f:\n"
    "    for _ in range(100):\n        f.write(b'x' * 2**23)\n"
)


@pytest.mark.parametrize("view", ["1", "0"], ids=["own view", "no view"])
def test_what_a_page_keeps_in_dev_shm_counts_in_its_limit_and_goes_with_it(monkeypatch, view):
    monkeypatch.setenv("DOCS_PAGE_MEMORY", "600M")
    monkeypatch.setenv("HANDBOOK_READ_ONLY_TREE", view)
    name = f"{os.getpid()}-{view}"
    runs = run(SHM.format(n=name) + "import time\ntime.sleep(10)", timeout=60)
    assert runs[0].status in ("memory", "raised"), runs[0].error
    if runs[0].status == "raised":  # its own /dev/shm, as large as its limit, is full first
        assert "No space left on device" in runs[0].error
    else:
        assert "of it in /dev/shm" in runs[0].error
    assert not os.path.exists(f"/dev/shm/handbook-test-{name}")


OUTSIDE = """
import os, tempfile
for path in (os.path.join({outside!r}, "x"), os.path.join(os.getcwd(), "..", "x"), "/tmp/handbook-test-outside"):
    try:
        with open(path, "w") as written:
            written.write("x")
        print("wrote", path == {outside!r} + "/x")
    except OSError as refused:
        print("refused", refused.strerror)
with open(os.path.join(tempfile.gettempdir(), "mine"), "w") as own:
    print("own temporary file", own.name.startswith(os.environ["TMPDIR"]))
print("token", os.environ.get("HANDBOOK_TEST_TOKEN"))
"""


@pytest.mark.skipif(REFUSED is not None, reason=f"this machine refuses a private read-only mount: {REFUSED}")
def test_a_page_writes_nothing_outside_its_own_directories_nor_reads_the_builds_secrets(monkeypatch, tmp_path):
    monkeypatch.setenv("HANDBOOK_TEST_TOKEN", "secret")  # as a CI step's token would be
    zygote.zygote().close()  # a zygote started now inherits the build's environment as it is now
    runs = run(OUTSIDE.format(outside=str(tmp_path)))
    assert runs[0].status == "ok", runs[0].error
    assert runs[0].output.splitlines() == [
        "refused Read-only file system",
        "refused Read-only file system",
        "refused Read-only file system",
        "own temporary file True",
        "token None",
    ]
    assert list(tmp_path.iterdir()) == [] and not os.path.exists("/tmp/handbook-test-outside")
