"""The settings the build gives every page process, the one table (`pipeline.prepare_page_processes`
sets them before the zygote starts): the execution cache's key reads which of them change outputs
(`cache.output_settings`), and the zygote passes every one on to the pages (`zygote.INHERITED`).

A value is a template: `{caches}` is the build's cache root, `{torch}` the installed torch's
version, `{capability}` the CPU capability torch's kernels use, `{matplotlibrc}` the handbook's.
"""

from __future__ import annotations

import enum
import os
from dataclasses import dataclass
from pathlib import Path

from handbook import switches
from handbook.execution.figures import MATPLOTLIBRC


class Kind(enum.Enum):
    OUTPUT = "output"  # another value, another output: part of the execution cache's key
    PLACE = "place"  # where something is kept (its content, if it matters, is keyed on its own)
    CACHE = "cache"  # a place: a directory made before pages start, writable by them


@dataclass(frozen=True)
class PageSetting:
    name: str
    kind: Kind
    template: str
    forced: bool = False  # set whatever the build inherited; otherwise a default the build may override


SETTINGS = (
    # One Inductor cache per ATEN_CPU_CAPABILITY: its FX graph cache, filled by an AVX2 build, hands
    # a build under `ATEN_CPU_CAPABILITY=default` vectorised kernels that no longer compile there.
    PageSetting("TORCHINDUCTOR_CACHE_DIR", Kind.CACHE, "{caches}/inductor/{capability}"),
    # One directory per torch: an extension built against one torch must not be loaded by another.
    PageSetting("TORCH_EXTENSIONS_DIR", Kind.CACHE, "{caches}/torch_extensions/{torch}"),
    # One compile worker per page: pages already run in parallel, one per core.
    PageSetting("TORCHINDUCTOR_COMPILE_THREADS", Kind.OUTPUT, "1"),
    # Set and dict-of-str orders must not change between builds, nor with a reader's shell (whose
    # PYTHONHASHSEED=random would otherwise reach every page): always 0, whatever the build inherited.
    PageSetting("PYTHONHASHSEED", Kind.OUTPUT, "0", forced=True),
    # Figures (CONTRIBUTING.md, "Figures"): drawn off-screen, with the handbook's matplotlibrc (a
    # fixed hash salt, text as text, one font; its text is part of the engine's version), dated by
    # no clock; matplotlib's font cache is built once, not per page.
    PageSetting("MPLBACKEND", Kind.OUTPUT, "Agg"),
    PageSetting("MATPLOTLIBRC", Kind.PLACE, "{matplotlibrc}"),
    PageSetting("SOURCE_DATE_EPOCH", Kind.OUTPUT, "0"),
    PageSetting("MPLCONFIGDIR", Kind.CACHE, "{caches}/matplotlib"),
    # The profiler's own timestamped log lines (profiler_start/stop) would make every profile drift.
    PageSetting("KINETO_LOG_LEVEL", Kind.OUTPUT, "6"),
    # C++ compiles take turns across a build's pages (why: compilers/one-compile-at-a-time). One
    # lock per torch: the editions `make test` builds side by side each hold their own pages'
    # memory in check. "" (set by the build): compiles run as they come.
    PageSetting(switches.COMPILE_LOCK, Kind.PLACE, "{caches}/compile-{torch}.lock"),
    # Pages see the caches read-only, but for torch's compile caches (see `confinement`).
    PageSetting(switches.PAGE_READ_ONLY, Kind.PLACE, "{caches}"),
)
NAMES = tuple(setting.name for setting in SETTINGS)
OUTPUTS = frozenset(s.name for s in SETTINGS if s.kind is Kind.OUTPUT)
PLACES = frozenset(s.name for s in SETTINGS if s.kind is not Kind.OUTPUT)
CACHES = tuple(s.name for s in SETTINGS if s.kind is Kind.CACHE)


def apply(caches: Path, torch: str) -> dict[str, str]:
    """Give this process's environment every setting (each page process inherits it); return each one's value."""
    capability = os.environ.get("ATEN_CPU_CAPABILITY", "").lower() or "native"
    where = {"caches": str(caches), "torch": torch, "capability": capability, "matplotlibrc": str(MATPLOTLIBRC)}
    for setting in SETTINGS:
        value = setting.template.format(**where)
        if setting.forced:
            os.environ[setting.name] = value
        else:
            os.environ.setdefault(setting.name, value)
    return {setting.name: os.environ[setting.name] for setting in SETTINGS}
