"""tools/lock.py: the locks' hashes, and which files a local build of torch may be."""

from __future__ import annotations

import hashlib
import importlib.util
import subprocess
from pathlib import Path

import pytest
from conftest import SUPPORTED

# Synthetic data: a made-up wheel and pip report (the repository's locks are read for each of
# SUPPORTED)

REPO = Path(__file__).resolve().parents[2]
spec = importlib.util.spec_from_file_location("lock", REPO / "tools" / "lock.py")
lock = importlib.util.module_from_spec(spec)
spec.loader.exec_module(lock)

DIGEST_A, DIGEST_B, DIGEST_C = ("a" * 64, "b" * 64, "c" * 64)


def report_item(name: str, version: str, url: str = "https://files.example/x.whl", digest=None, requires=()) -> dict:
    archive = {"hashes": {"sha256": digest}} if digest else {}
    return {
        "metadata": {"name": name, "version": version, "requires_dist": list(requires)},
        "download_info": {"url": url, "archive_info": archive},
    }


def test_a_written_lock_reads_back_pin_for_pin(tmp_path):
    pins = {
        "appnope": lock.Pin("appnope", "1.0.0", 'platform_system == "Darwin"', frozenset({DIGEST_A})),
        "mkdocs": lock.Pin("mkdocs", "1.6.1", "", frozenset({DIGEST_B, DIGEST_C})),
    }
    path = tmp_path / "requirements.lock"
    lock.write_lock(path, pins)
    assert lock.read_pins(path) == pins
    assert "--hash=sha256:" + DIGEST_A in path.read_text()


def test_the_repository_locks_pin_every_requirement_with_hashes():
    pins = lock.read_pins(lock.MAIN_LOCK)
    assert pins and all(pin.hashes for pin in pins.values())
    assert "torch" not in pins  # torch lives in locks/torch-<release>.txt only
    for release in SUPPORTED:
        assert lock.read_pins(lock.torch_lock(release))["torch"].version == release


def test_a_pypi_pin_gets_every_file_pypi_holds_and_the_one_picked_here(monkeypatch):
    monkeypatch.setattr(lock, "pypi_hashes", lambda name, version: {DIGEST_A, DIGEST_B})
    pin = lock.Pin("numpy", "2.4.6")
    assert lock.hashes(pin, report_item("numpy", "2.4.6", digest=DIGEST_C)) == {DIGEST_A, DIGEST_B, DIGEST_C}


def test_a_local_build_is_never_pypis_other_build(monkeypatch, tmp_path):
    """torch 2.13.0+cpu: PyPI's 2.13.0 (a CUDA build, other outputs) must not install in its place."""

    def no_pypi(name, version):
        raise AssertionError("PyPI asked for a local build's hashes")

    monkeypatch.setattr(lock, "pypi_hashes", no_pypi)
    wheel = tmp_path / "torch-2.13.0+cpu-cp311-cp311-manylinux_2_28_x86_64.whl"
    wheel.write_bytes(b"wheel")
    pin = lock.Pin("torch", "2.13.0", "", frozenset({DIGEST_A}))  # found earlier on another machine
    item = report_item("torch", "2.13.0+cpu", url=wheel.as_uri())
    assert lock.hashes(pin, item) == {DIGEST_A, hashlib.sha256(b"wheel").hexdigest()}


def test_what_torch_brings_in_is_locked_under_the_marker_that_brings_it():
    items = {
        "torch": report_item(
            "torch",
            "2.15.0",
            requires=['cuda-toolkit[cublas]==13.2.2; platform_system == "Linux"', "sympy>=1.13.3"],
        ),
        "cuda-toolkit": report_item("cuda-toolkit", "13.2.2", requires=['nvidia-cublas==13.4.1.3; extra == "cublas"']),
        "nvidia-cublas": report_item("nvidia-cublas", "13.4.1.3"),
        "sympy": report_item("sympy", "1.14.0"),
    }
    assert lock.torch_markers(items) == {
        "torch": "",
        "cuda-toolkit": 'platform_system == "Linux"',
        "nvidia-cublas": 'platform_system == "Linux"',
        "sympy": "",
    }


@pytest.mark.parametrize(("wheel", "pypi"), [("13.0.3.0", "13.0.3"), ("2.0", "2"), ("1.10", "1.10")])
def test_zero_padded_versions_are_the_same_release(wheel, pypi):
    assert lock.unpadded(wheel) == lock.unpadded(pypi)


def test_a_release_without_a_lock_fails_naming_the_command():
    result = subprocess.run(
        ["make", "-C", str(REPO), "--no-print-directory", "locks/torch-9.9.9.txt", "TORCH=9.9.9"],
        capture_output=True,
        text=True,
    )
    assert result.returncode != 0
    assert "python3 tools/lock.py 9.9.9" in result.stderr, result.stderr
