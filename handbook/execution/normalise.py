"""Output normalisers: the complete, explicit list of what is rewritten before
an output is recorded or compared. Each exists because the text it replaces
differs between runs or machines while meaning the same thing.

Each normaliser takes time linear in its input (a block may print megabytes):
plain string replacement, or a regular expression that cannot backtrack over
more than a bounded stretch. `tests/unit/test_normalise.py` feeds each one an
adversarial multi-megabyte input.
"""

from __future__ import annotations

import os
import re
import sys
import sysconfig
import tempfile
from collections.abc import Callable
from pathlib import Path

from handbook.environment import temporary_base

# Object addresses such as `<Foo object at 0x7f3a1c2b9e50>` change every run.
ADDRESS = re.compile(r"\b0x[0-9a-f]{8,16}\b")


def path_replacements(repo_root: Path) -> list[tuple[str, str]]:
    """Installation paths differ between machines; longest first so the venv wins over the repo.
    Each as given and resolved: a symlinked environment shows both."""
    paths = sysconfig.get_paths()
    pairs = {
        (directory + "/", replacement)
        for location, replacement in [
            (paths["purelib"], "<site-packages>/"),
            (paths["stdlib"], "<python>/"),
            (str(repo_root), ""),
            (sys.base_prefix, "<python>/"),
        ]
        for directory in (location, os.path.realpath(location))
    }
    return sorted(pairs, key=lambda pair: len(pair[0]), reverse=True)


# torch's C++-style log lines start with a timestamp and a thread id: `W1129 08:50:22.984000 1364 `.
LOG_PREFIX = re.compile(r"^([DIWEF])\d{4} \d{2}:\d{2}:\d{2}\.\d+ +\d+ ", re.MULTILINE)

# Temporary files and each page's working directory get random names; a page's own directories are
# in the build's (`handbook-build-*/page-*`), and its temporary files in its own (`page-*-tmp/tmp*`).
_BASES = sorted({tempfile.gettempdir(), temporary_base()}, key=len, reverse=True)  # the build's, its pages'
TEMP_PATH = re.compile(
    "(?:"
    + "|".join(map(re.escape, _BASES))
    + ")"
    + r"/(?:handbook-build-[\w.-]+/page-[\w.-]+(?:/tmp[\w.-]+)?|(?:page-|tmp|handbook-)[\w.-]+)"
)


# A CUDA build of torch on a machine without a GPU logs this when torch.utils.cpp_extension is
# first imported, only where a CUDA toolkit is installed (`CUDA_HOME`, or `nvcc` on the PATH), and
# with that toolkit's path: whether the line exists at all depends on the machine.
CUDA_TOOLKIT_WARNING = re.compile(
    r"^W torch/utils/cpp_extension\.py:\d+\] (?:\[[\d/]+\] )?No CUDA runtime is found, using CUDA_HOME='[^'\n]*'\n?",
    re.MULTILINE,
)


def installation_paths(text: str, repo_root: Path) -> str:
    for before, after in path_replacements(repo_root):
        text = text.replace(before, after)
    return text


def log_prefixes(text: str, repo_root: Path) -> str:
    return LOG_PREFIX.sub(r"\1 ", text)


def cuda_toolkit_warning(text: str, repo_root: Path) -> str:
    return CUDA_TOOLKIT_WARNING.sub("", text)


def temporary_paths(text: str, repo_root: Path) -> str:
    return TEMP_PATH.sub("<tmp>", text)


def addresses(text: str, repo_root: Path) -> str:
    return ADDRESS.sub("0x...", text)


def trailing_whitespace(text: str, repo_root: Path) -> str:
    # Line by line: the regular expression `[ \t]+$` is quadratic in a long run of
    # spaces that does not end its line.
    return "\n".join(line.rstrip(" \t") for line in text.split("\n")).rstrip("\n")


# In the order they apply.
NORMALISERS: tuple[Callable[[str, Path], str], ...] = (
    installation_paths,
    log_prefixes,
    cuda_toolkit_warning,
    temporary_paths,
    addresses,
    trailing_whitespace,
)


def normalise(text: str, repo_root: Path) -> str:
    for normaliser in NORMALISERS:
        text = normaliser(text, repo_root)
    return text
