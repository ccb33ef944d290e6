"""What the examples run on: torch's version and commit, Python, device.

Read without importing torch (its import costs a second, and a no-change rebuild
must not pay it): torch/version.py is plain text. Only where a GPU may exist is a
page process asked which device it sees.
"""

from __future__ import annotations

import glob
import importlib.util
import os
import platform
import re
import tempfile
from dataclasses import dataclass
from pathlib import Path

from packaging.version import InvalidVersion, Version

from handbook import switches
from handbook.errors import InputError
from handbook.languages import DEFAULT
from handbook.messages import Words

# The Pythons an edition holds for. Every recording is made with the first; where another
# prints differently, its output is recorded beside (`handbook.execution.recordings`), and
# each published edition is built with the first. The Makefile's PYTHONS lists the same.
SUPPORTED_PYTHONS = ("3.11", "3.12", "3.13")
RECORDED_PYTHON = SUPPORTED_PYTHONS[0]


# The platform every output is recorded on. Where another prints differently, its output is
# recorded in that platform's overlay (`handbook.execution.recordings`; ARCHITECTURE.md, "Editions, Pythons
# and platforms").
RECORDED_PLATFORM = "linux-x86_64"


CACHE_DIR = ".cache/handbook"  # below the repository root, unless HANDBOOK_CACHE_DIR names another


def cache_root(root: Path, settings: switches.Settings | None = None) -> Path:
    """Where every cache of the build lives (runs, source symbols, notebooks, torch's compile caches)."""
    return ((settings or switches.read()).cache_dir or root / CACHE_DIR).absolute()


# A socket's path holds at most 107 bytes, and a page's multiprocessing (a DataLoader's workers, a
# manager) makes its sockets in the page's temporary directory, which is in the build's: under a deep
# TMPDIR (over this many characters) the build makes its directory in /tmp instead.
SHORT_TEMPORARY_BASE = 40


def temporary_base() -> str:
    """Where the build makes its own temporary directory: the system's, unless it is too deep."""
    base = tempfile.gettempdir()
    if len(base) <= SHORT_TEMPORARY_BASE or not os.access("/tmp", os.W_OK | os.X_OK):
        return base
    return "/tmp"


def this_platform() -> str:
    """`linux-x86_64`, `linux-aarch64`, `macos-arm64`: what recorded outputs differ by, besides Python."""
    system = {"darwin": "macos"}.get(platform.system().lower(), platform.system().lower())
    machine = {"amd64": "x86_64", "arm64": "arm64" if system == "macos" else "aarch64"}.get(
        platform.machine().lower(), platform.machine().lower()
    )
    return f"{system}-{machine}"


def python_minor(version: str) -> str:
    """`3.13.0` -> `3.13`: outputs differ by Python's minor version, not by its patch release."""
    return ".".join(version.split(".")[:2])


def release_of(torch_version: str) -> str:
    """`2.13.0+cpu` and `2.13.0` are one release: a local build tag does not change outputs' home."""
    return torch_version.split("+", 1)[0]


def minor_version(version: str) -> str:
    """`2.14.1+cu130` -> `2.14`: what an edition of the site is named after."""
    return ".".join(release_of(version).split(".")[:2])


def release_order(version: str) -> Version:
    """A release as packaging orders it: `2.16.0rc1` before `2.16.0`, `2.14.1+cu130` as `2.14.1`."""
    try:
        return Version(release_of(version))
    except InvalidVersion:
        raise InputError(f"{version!r} is not a release number (such as 2.14.1 or 2.16.0rc1)") from None


def version_key(version: str, parts: int = 3) -> tuple[int, ...]:
    """`2.14.1+cu130` -> (2, 14, 1): its first `parts` numbers, for a condition written with fewer
    (`torch >= 2.16` holds for 2.16.0rc1: an edition reads as its release does)."""
    return release_order(version).release[:parts]


@dataclass(frozen=True)
class TorchIdentity:
    version: str
    git_version: str
    cuda: str | None = None  # the CUDA version torch was built for, None for a CPU build

    @property
    def release(self) -> str:
        return release_of(self.version)

    @property
    def tag(self) -> str:
        """The git ref of this torch: its release tag, or its commit for a build without one."""
        if re.fullmatch(r"\d+\.\d+\.\d+", self.release):
            return f"v{self.release}"
        return self.git_version


def site_packages() -> Path:
    spec = importlib.util.find_spec("torch")
    if spec is None or not spec.origin:
        raise RuntimeError("torch is not installed")
    return Path(spec.origin).parent.parent


def installed_torch(packages: Path | None = None) -> TorchIdentity:
    text = ((packages or site_packages()) / "torch" / "version.py").read_text(encoding="utf-8")

    def field(name: str) -> str | None:
        match = re.search(rf"^{name}(?::[^=]*)?\s*=\s*'([^']*)'", text, re.MULTILINE)
        return match[1] if match else None

    return TorchIdentity(field("__version__"), field("git_version"), field("cuda"))


def gpu_possible(identity: TorchIdentity) -> bool:
    """A CPU build, or a machine without NVIDIA device files, cannot run CUDA."""
    return identity.cuda is not None and bool(glob.glob("/dev/nvidia[0-9]*"))


@dataclass(frozen=True)
class Machine:
    """The machine a page ran on, as its measurements name it (`page_process.this_machine`)."""

    cpu: str  # the CPU's model name
    arch: str  # platform.machine(): x86_64, aarch64, arm64
    capability: str  # the CPU capability ATen dispatches to: AVX512, AVX2, DEFAULT, SVE256
    threads: int  # intra-op threads

    def describe(self, language: str = DEFAULT) -> str:
        """The machine in one line of the site's language: its CPU, architecture, capability and threads."""
        return Words(language)(
            "{cpu} ({arch}, ATen CPU capability {capability}, {threads} intra-op thread(s))",
            cpu=self.cpu,
            arch=self.arch,
            capability=self.capability,
            threads=self.threads,
        )


@dataclass(frozen=True)
class Environment:
    """What the examples run on: the one description the cache, the reports and the banner use."""

    torch: str  # torch.__version__, e.g. 2.15.0+cu132
    git_version: str
    python: str  # platform.python_version()
    device: str  # "cpu", or "cuda: <device name>"

    @classmethod
    def of(cls, identity: TorchIdentity, device: str = "cpu") -> Environment:
        return cls(identity.version, identity.git_version, platform.python_version(), device)

    @property
    def release(self) -> str:
        return release_of(self.torch)

    @property
    def python_minor(self) -> str:
        return python_minor(self.python)

    @property
    def has_cuda(self) -> bool:
        return self.device.startswith("cuda")

    @property
    def gpu_name(self) -> str:
        return self.device.removeprefix("cuda: ")

    def as_dict(self) -> dict[str, str]:
        return {"torch": self.torch, "git_version": self.git_version, "python": self.python, "device": self.device}
