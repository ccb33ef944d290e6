"""Where PyTorch's source files are, at the tag of the installed torch, without importing torch.

A repository path maps to a file shipped in the wheel (Python files, headers, the
YAML files under torchgen), or, for files the wheel does not ship (`.cpp`, `.cu`),
to an entry of the committed source index, made from the source paths recorded in
the installed shared libraries (`handbook.sources.index`, `python -m handbook source-index`).
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

from handbook import switches
from handbook.environment import TorchIdentity, cache_root, installed_torch, site_packages
from handbook.errors import InputError

REPOSITORY = "https://github.com/pytorch/pytorch"
INDEX_DIR = "source-index"
BUILD_PREFIX = b"/__w/pytorch/pytorch/"
HEADER_WRAPPER = "#if !defined(TORCH_STABLE_ONLY)"

# Files made by the build: they are not in the repository, so a link would 404.
GENERATED = (
    re.compile(r"^aten/src/ATen/ops/"),
    re.compile(
        r"^aten/src/ATen/(Functions|Operators|NativeFunctions|NativeMetaFunctions|MethodOperators|RedispatchFunctions|RegistrationDeclarations)\.h$"
    ),
    re.compile(r"^aten/src/ATen/core/(TensorBody|aten_interned_strings)\.h$"),
    re.compile(r"^aten/src/ATen/Register\w+\.cpp$"),
    re.compile(r"^torch/csrc/autograd/generated/"),
    re.compile(r"^torch/csrc/lazy/generated/"),
    re.compile(r"^torch/version\.py$"),
    re.compile(r"^torch/_C/_VariableFunctions\.pyi$"),
    re.compile(r"^build/"),
)


class SourceError(InputError):
    """A source reference that cannot be verified at the installed tag."""


@dataclass(frozen=True)
class SourceFile:
    repo_path: str
    installed: Path | None  # None: not shipped, existence known from the index
    line_offset: int = 0  # repo line = installed line - offset

    def lines(self) -> list[str]:
        if self.installed is None:
            raise SourceError(f"{self.repo_path} is not shipped in the wheel; it can be linked only without a symbol")
        return _read_lines(self.installed)


@functools.cache
def _read_lines(path: Path) -> list[str]:
    """Each installed file is read once per process, however many links point into it."""
    return path.read_text(encoding="utf-8", errors="replace").splitlines()


def candidates(repo_path: str) -> list[str]:
    """Paths under site-packages where the wheel may ship `repo_path`."""
    found = []
    if repo_path.startswith("aten/src/ATen/native/") and repo_path.endswith(".yaml"):
        found.append("torchgen/packaged/ATen/native/" + repo_path.rsplit("/", 1)[1])
    if repo_path.startswith("aten/src/ATen/templates/"):
        # The build copies ATen's code-generation templates into torchgen's package unchanged.
        found.append("torchgen/packaged/ATen/templates/" + repo_path.removeprefix("aten/src/ATen/templates/"))
    if repo_path.startswith("tools/autograd/"):
        found.append("torchgen/packaged/autograd/" + repo_path.removeprefix("tools/autograd/"))
    if repo_path.startswith("aten/src/ATen/"):
        found.append("torch/include/ATen/" + repo_path.removeprefix("aten/src/ATen/"))
    if repo_path.startswith("c10/"):
        found.append("torch/include/" + repo_path)
    if repo_path.startswith("torch/"):
        found.append(repo_path)
        found.append("torch/include/" + repo_path)
    if repo_path.startswith("torchgen/"):
        found.append(repo_path)
    return found


class SourceTree:
    """The installed torch's view of the PyTorch repository at its tag."""

    def __init__(self, root: Path, packages: Path | None = None, settings: switches.Settings | None = None):
        self.root = root
        self.caches = cache_root(root, settings)  # where the answers about its symbols are kept
        self.packages = packages or site_packages()
        self.identity = installed_torch(self.packages)
        self._files: dict[str, SourceFile] = {}

    def url(self, repo_path: str, first: int | None = None, last: int | None = None) -> str:
        anchor = ""
        if first is not None:
            anchor = f"#L{first}" if last in (None, first) else f"#L{first}-L{last}"
        return f"{REPOSITORY}/blob/{self.identity.tag}/{repo_path}{anchor}"

    @cached_property
    def index(self) -> set[str]:
        """Repository paths known to exist at the tag though the wheel does not ship them."""
        path = index_path(self.root, self.identity)
        if not path.is_file():
            raise SourceError(
                f"no source index for torch {self.identity.version} at {path.relative_to(self.root)}; run `make "
                "source-index`"
            )
        lines = path.read_text(encoding="utf-8").splitlines()
        header = dict(re.findall(r"^# (torch|git_version): (\S+)$", "\n".join(lines[:3]), re.MULTILINE))
        if header.get("torch") != self.identity.version or header.get("git_version") != self.identity.git_version:
            raise SourceError(
                f"the source index {path.relative_to(self.root)} was made for torch {header.get('torch')} "
                f"({header.get('git_version')}), but torch {self.identity.version} ({self.identity.git_version}) "
                "is installed; "
                "run `make source-index`"
            )
        return {line for line in lines if line and not line.startswith("#")}

    def file(self, repo_path: str) -> SourceFile:
        if repo_path not in self._files:
            self._files[repo_path] = self._locate(repo_path)
        return self._files[repo_path]

    def _locate(self, repo_path: str) -> SourceFile:
        if any(pattern.search(repo_path) for pattern in GENERATED):
            raise SourceError(
                f"{repo_path} is generated by PyTorch's build and is not in the repository; link its template or "
                "the code that generates it"
            )
        for candidate in candidates(repo_path):
            installed = self.packages / candidate
            if installed.is_file():
                with installed.open(encoding="utf-8", errors="replace") as handle:
                    wrapped = handle.readline().startswith(HEADER_WRAPPER)
                return SourceFile(repo_path, installed, 1 if wrapped else 0)
        if repo_path in self.index:
            return SourceFile(repo_path, None)
        raise SourceError(
            f"{repo_path} does not exist in PyTorch {self.identity.tag}: it is neither shipped in the wheel nor "
            "in the source index"
        )


def index_path(root: Path, identity: TorchIdentity) -> Path:
    return root / INDEX_DIR / f"torch-{identity.release}.txt"
