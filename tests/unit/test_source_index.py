"""`handbook.sources.index`: the source paths the compiler left in torch's shared libraries, and
the committed index made of them, which `SourceTree` reads."""

from __future__ import annotations

from pathlib import Path

from handbook.environment import installed_torch
from handbook.sources.index import paths_in_libraries, write_index
from handbook.sources.tree import BUILD_PREFIX, SourceTree

REPO = Path(__file__).resolve().parents[2]


def library(packages: Path, name: str, *recorded: bytes) -> None:
    """A file in torch/lib/ holding `recorded` among other bytes, as assertion strings sit in a binary."""
    lib = packages / "torch" / "lib"
    lib.mkdir(parents=True, exist_ok=True)
    (lib / name).write_bytes(b"\x7fELF\x00\x01" + b"\x00".join(recorded) + b"\x00\xff")


def test_the_paths_a_library_records_under_the_build_prefix_are_found(tmp_path):
    library(
        tmp_path,
        "libtorch_cpu.so",
        BUILD_PREFIX + b"aten/src/ATen/native/Thing.cpp",
        b"expected x to be 1 at " + BUILD_PREFIX + b"torch/csrc/autograd/engine.cpp:123",  # with a line
        BUILD_PREFIX + b"c10/core/Thing.h",
        BUILD_PREFIX + b"aten/src/ATen/native/cuda/Thing.cu",
    )
    library(tmp_path, "libc10.so.2", BUILD_PREFIX + b"c10/util/Logging.cpp", BUILD_PREFIX + b"c10/core/Thing.h")
    assert paths_in_libraries(tmp_path) == {
        "aten/src/ATen/native/Thing.cpp",
        "torch/csrc/autograd/engine.cpp",
        "c10/core/Thing.h",
        "aten/src/ATen/native/cuda/Thing.cu",
        "c10/util/Logging.cpp",
    }


def test_a_path_keeps_its_whole_suffix(tmp_path):
    """`.cuh` and `.hpp` were cut to `.cu` and `.h`, paths that do not exist at the tag."""
    library(
        tmp_path,
        "libtorch_cuda.so",
        BUILD_PREFIX + b"aten/src/ATen/native/cuda/Loops.cuh",
        BUILD_PREFIX + b"third_party/ideep/mkl-dnn/src/common/convolution_pd.hpp",
        BUILD_PREFIX + b"aten/src/ATen/native/cuda/Loops.cu",
        BUILD_PREFIX + b"third_party/kineto/libkineto/src/Logger.cxx",  # no suffix of a source file: left out
    )
    assert paths_in_libraries(tmp_path) == {
        "aten/src/ATen/native/cuda/Loops.cuh",
        "third_party/ideep/mkl-dnn/src/common/convolution_pd.hpp",
        "aten/src/ATen/native/cuda/Loops.cu",
    }


def test_build_outputs_other_prefixes_other_suffixes_and_other_files_are_left_out(tmp_path):
    library(
        tmp_path,
        "libtorch_cpu.so",
        BUILD_PREFIX + b"build/aten/src/ATen/Thing.cpp",  # made by the build, under its build directory
        BUILD_PREFIX + b"aten/src/ATen/RegisterCPU.cpp",  # generated: not in the repository
        BUILD_PREFIX + b"torch/csrc/autograd/generated/Functions.cpp",
        b"/usr/include/c++/13/bits/stl_vector.h",  # not PyTorch's
        b"/opt/conda/pytorch/torch/csrc/Module.cpp",  # another build prefix
        BUILD_PREFIX + b"torch/csrc/Module.o",
        BUILD_PREFIX + b"aten/src/ATen/native/Kept.cpp",
    )
    library(tmp_path, "notes.txt", BUILD_PREFIX + b"torch/csrc/NotALibrary.cpp")
    assert paths_in_libraries(tmp_path) == {"aten/src/ATen/native/Kept.cpp"}


def test_a_wheel_without_libraries_records_nothing(tmp_path):
    assert paths_in_libraries(tmp_path) == set()


def test_the_index_written_from_the_installed_torch_is_read_back_and_is_the_committed_one(tmp_path):
    """Written into an empty tree: what `SourceTree` reads is what the libraries record, and the
    committed index of the installed torch is current (`make source-index` rewrites it)."""
    identity = installed_torch()
    written = write_index(tmp_path)
    assert written == tmp_path / "source-index" / f"torch-{identity.release}.txt"
    lines = written.read_text(encoding="utf-8").splitlines()
    assert lines[:2] == [f"# torch: {identity.version}", f"# git_version: {identity.git_version}"]
    paths = [line for line in lines if not line.startswith("#")]
    assert paths == sorted(paths) and len(paths) > 1000
    assert SourceTree(tmp_path).index == set(paths)
    committed = (REPO / "source-index" / written.name).read_text(encoding="utf-8").splitlines()
    assert committed == lines
