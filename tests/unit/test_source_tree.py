"""`handbook.sources.tree`: a repository path at the installed torch's tag, as a file the wheel
ships or as an entry of the source index; first on small wheels made here, then on the real one."""

from __future__ import annotations

from pathlib import Path

import pytest

from handbook.environment import site_packages
from handbook.sources.tree import HEADER_WRAPPER, SourceError, SourceTree, candidates

# Synthetic data: a made-up wheel and source index

REPO = Path(__file__).resolve().parents[2]
COMMIT = "0123456789abcdef0123456789abcdef01234567"


def wheel(root: Path, files: dict[str, str], version: str = "2.13.0+cpu", git_version: str = COMMIT) -> Path:
    """A site-packages holding torch/version.py and `files` (path under site-packages: text)."""
    packages = root / "site-packages"
    (packages / "torch").mkdir(parents=True)
    (packages / "torch" / "version.py").write_text(f"__version__ = '{version}'\ngit_version = '{git_version}'\n")
    for path, text in files.items():
        (packages / path).parent.mkdir(parents=True, exist_ok=True)
        (packages / path).write_text(text)
    return packages


def source_index(root: Path, paths: list[str], release: str = "2.13.0", header: str | None = None) -> Path:
    index = root / "source-index" / f"torch-{release}.txt"
    index.parent.mkdir(parents=True, exist_ok=True)
    header = header if header is not None else f"# torch: {release}+cpu\n# git_version: {COMMIT}\n# made here\n"
    index.write_text(header + "".join(f"{path}\n" for path in paths))
    return index


@pytest.fixture
def made(tmp_path) -> SourceTree:
    """A wheel shipping one header (wrapped, as torch's installed headers are), one Python file
    and one YAML file; its index lists one `.cpp` and, again, the Python file."""
    packages = wheel(
        tmp_path,
        {
            "torch/include/c10/core/Thing.h": f"{HEADER_WRAPPER} && !defined(X)\n#pragma once\nstruct Thing {{}};\n",
            "torch/nn/thing.py": "class Thing:\n    pass\n",
            "torchgen/packaged/ATen/native/native_functions.yaml": "- func: thing(Tensor self) -> Tensor\n",
        },
    )
    source_index(tmp_path, ["", "# a comment", "torch/csrc/thing.cpp", "torch/nn/thing.py"])
    return SourceTree(tmp_path, packages)


# --- where the wheel ships a repository path -------------------------------------------------


@pytest.mark.parametrize(
    "repo_path, expected",
    [
        ("torch/nn/functional.py", ["torch/nn/functional.py", "torch/include/torch/nn/functional.py"]),
        ("torchgen/gen.py", ["torchgen/gen.py"]),
        ("c10/core/TensorImpl.h", ["torch/include/c10/core/TensorImpl.h"]),
        ("aten/src/ATen/core/Tensor.h", ["torch/include/ATen/core/Tensor.h"]),
        (
            "aten/src/ATen/native/native_functions.yaml",
            ["torchgen/packaged/ATen/native/native_functions.yaml", "torch/include/ATen/native/native_functions.yaml"],
        ),
        (
            "aten/src/ATen/templates/TensorBody.h",
            ["torchgen/packaged/ATen/templates/TensorBody.h", "torch/include/ATen/templates/TensorBody.h"],
        ),
        ("tools/autograd/derivatives.yaml", ["torchgen/packaged/autograd/derivatives.yaml"]),
        ("caffe2/core/common.h", []),
        ("third_party/fmt/include/fmt/core.h", []),
    ],
)
def test_each_repository_path_has_the_places_the_wheel_may_ship_it_in_order(repo_path, expected):
    assert candidates(repo_path) == expected


def test_a_shipped_header_is_found_and_its_wrapper_line_offsets_repository_lines(made):
    header = made.file("c10/core/Thing.h")
    assert header.installed == made.packages / "torch/include/c10/core/Thing.h"
    assert header.line_offset == 1  # the installed copy has one line more than the repository's, on top
    assert header.lines()[header.line_offset] == "#pragma once"
    python = made.file("torch/nn/thing.py")
    assert (python.installed, python.line_offset) == (made.packages / "torch/nn/thing.py", 0)
    assert python.lines() == ["class Thing:", "    pass"]


def test_a_yaml_file_of_aten_is_found_in_torchgens_package(made):
    found = made.file("aten/src/ATen/native/native_functions.yaml")
    assert found.installed == made.packages / "torchgen/packaged/ATen/native/native_functions.yaml"


def test_a_file_the_wheel_does_not_ship_is_known_from_the_index_and_has_no_lines(made):
    engine = made.file("torch/csrc/thing.cpp")
    assert engine.installed is None
    with pytest.raises(SourceError, match="torch/csrc/thing.cpp is not shipped in the wheel; .* without a symbol"):
        engine.lines()


def test_the_index_holds_its_paths_but_neither_comments_nor_blank_lines(made):
    assert made.index == {"torch/csrc/thing.cpp", "torch/nn/thing.py"}


def test_a_shipped_file_is_read_from_the_wheel_even_where_the_index_lists_it(made):
    assert made.file("torch/nn/thing.py").installed is not None


@pytest.mark.parametrize(
    "path",
    [
        "aten/src/ATen/ops/add.h",
        "aten/src/ATen/Functions.h",
        "aten/src/ATen/core/TensorBody.h",
        "aten/src/ATen/RegisterCPU.cpp",
        "torch/csrc/autograd/generated/Functions.h",
        "torch/csrc/lazy/generated/LazyIr.h",
        "torch/version.py",  # shipped (every wheel has it), but made by the build
        "torch/_C/_VariableFunctions.pyi",
        "build/aten/src/ATen/RegisterCPU.cpp",
    ],
)
def test_a_file_made_by_the_build_is_refused_whether_shipped_or_not(made, path):
    with pytest.raises(SourceError, match=f"{path} is generated by PyTorch's build .* link its template"):
        made.file(path)


def test_a_path_neither_shipped_nor_indexed_is_refused_naming_the_tag(made):
    with pytest.raises(SourceError, match="torch/csrc/none.cpp does not exist in PyTorch v2.13.0: it is neither"):
        made.file("torch/csrc/none.cpp")


@pytest.mark.parametrize(
    "header, made_for",
    [
        (f"# torch: 2.12.0+cpu\n# git_version: {COMMIT}\n", rf"2.12.0\+cpu \({COMMIT}\)"),
        ("# torch: 2.13.0+cpu\n# git_version: fedcba\n", r"2.13.0\+cpu \(fedcba\)"),  # the same version, rebuilt
        ("torch/csrc/x.cpp\n", r"None \(None\)"),
    ],
)
def test_an_index_made_for_another_torch_is_refused(tmp_path, header, made_for):
    source_index(tmp_path, ["torch/csrc/x.cpp"], header=header)
    tree = SourceTree(tmp_path, wheel(tmp_path, {}))
    with pytest.raises(SourceError, match=rf"was made for torch {made_for}, but torch 2.13.0\+cpu \({COMMIT}\) is"):
        tree.file("torch/csrc/x.cpp")


def test_a_missing_index_says_how_to_make_it(tmp_path):
    tree = SourceTree(tmp_path, wheel(tmp_path, {}))
    with pytest.raises(SourceError, match=r"no source index for torch 2.13.0\+cpu at source-index/torch-2.13.0.txt; "):
        tree.file("torch/csrc/x.cpp")


def test_links_point_at_the_tag_with_a_line_or_a_range(made):
    base = "https://github.com/pytorch/pytorch/blob/v2.13.0/c10/core/Thing.h"
    assert made.url("c10/core/Thing.h") == base
    assert made.url("c10/core/Thing.h", 3) == made.url("c10/core/Thing.h", 3, 3) == base + "#L3"
    assert made.url("c10/core/Thing.h", 3, 9) == base + "#L3-L9"


def test_a_build_without_a_release_tag_links_its_commit(tmp_path):
    tree = SourceTree(tmp_path, wheel(tmp_path, {}, version="2.16.0a0+gitabc"))
    assert tree.url("torch/nn/thing.py", 1) == f"https://github.com/pytorch/pytorch/blob/{COMMIT}/torch/nn/thing.py#L1"


# --- the installed wheel and the committed index ---------------------------------------------


@pytest.fixture(scope="module")
def tree():
    return SourceTree(REPO)


@pytest.mark.parametrize(
    "repo_path, installed, offset",
    [
        ("torch/autograd/function.py", "torch/autograd/function.py", 0),
        ("c10/core/TensorImpl.h", "torch/include/c10/core/TensorImpl.h", 1),
        ("aten/src/ATen/core/dispatch/Dispatcher.h", "torch/include/ATen/core/dispatch/Dispatcher.h", 1),
        ("torch/csrc/autograd/variable.h", "torch/include/torch/csrc/autograd/variable.h", 1),
        ("aten/src/ATen/native/native_functions.yaml", "torchgen/packaged/ATen/native/native_functions.yaml", 0),
        ("tools/autograd/derivatives.yaml", "torchgen/packaged/autograd/derivatives.yaml", 0),
        ("aten/src/ATen/templates/TensorBody.h", "torchgen/packaged/ATen/templates/TensorBody.h", 0),
    ],
)
def test_repository_paths_map_to_installed_files(tree, repo_path, installed, offset):
    source = tree.file(repo_path)
    assert source.installed == site_packages() / installed
    assert source.line_offset == offset


def test_files_not_in_the_wheel_come_from_the_index(tree):
    assert tree.file("torch/csrc/autograd/engine.cpp").installed is None


@pytest.mark.parametrize(
    "path", ["aten/src/ATen/ops/add.h", "aten/src/ATen/core/TensorBody.h", "torch/csrc/autograd/generated/Functions.h"]
)
def test_generated_files_are_refused(tree, path):
    with pytest.raises(SourceError, match="generated by PyTorch's build"):
        tree.file(path)


def test_unknown_path_is_refused(tree):
    with pytest.raises(SourceError, match=f"does not exist in PyTorch {tree.identity.tag}"):
        tree.file("torch/csrc/autograd/no_such_file.cpp")
