import sysconfig
from pathlib import Path

import pytest

from handbook.execution.normalise import NORMALISERS, normalise

REPO = Path("/somewhere/repo")


def test_addresses_paths_and_trailing_space():
    site = sysconfig.get_paths()["purelib"]
    text = f"<Node object at 0x7f3a1c2b9e50>  \n{site}/torch/x.py:3\n/somewhere/repo/snippets/a.py\n\n"
    assert normalise(text, REPO) == "<Node object at 0x...>\n<site-packages>/torch/x.py:3\nsnippets/a.py"


def test_short_hex_values_are_kept():
    assert normalise("0xff 0x1234", REPO) == "0xff 0x1234"


def test_log_line_prefix():
    line = "W1129 08:50:22.984000 1364 torch/utils/cpp_extension.py:183] No CUDA runtime"
    assert normalise(line, REPO) == "W torch/utils/cpp_extension.py:183] No CUDA runtime"


def test_the_cuda_toolkit_warning_goes_since_only_some_machines_print_it():
    for tag in ("", "[0/0] "):
        text = f"W1129 08:50:22.984000 1364 torch/utils/cpp_extension.py:183] {tag}No CUDA runtime is found, using "
        assert normalise(text + "CUDA_HOME='/usr/local'\nloaded", REPO) == "loaded"
    assert (
        normalise("No CUDA runtime is found, using CUDA_HOME='/x'", REPO)
        == "No CUDA runtime is found, using CUDA_HOME='/x'"
    )


def test_a_pages_own_directories_and_temporary_files_are_one_temporary_path():
    import tempfile

    build = f"{tempfile.gettempdir()}/handbook-build-x1/page-ab_c"
    text = f"{build}\n{build}-tmp/tmpq1w2/head.pt2\n{tempfile.gettempdir()}/tmpz/a.pt"
    assert normalise(text, REPO) == "<tmp>\n<tmp>/head.pt2\n<tmp>/a.pt"


def test_trailing_whitespace_goes_from_every_line_and_the_end():
    assert normalise("a \t\n \nb\t\n\n\n", REPO) == "a\n\nb"
    assert normalise("keeps  inner  space", REPO) == "keeps  inner  space"


# For each normaliser, inputs of several megabytes built to make a backtracking or
# repeated-scan implementation blow up: near misses of what it looks for, repeated,
# and long runs where a match fails only at the end. (Python expressions, built in
# the interpreter that times them; N is the size in characters.)
ADVERSARIAL = {
    "installation_paths": [
        "(sysconfig.get_paths()['purelib'][:-1] + ' ') * (N // 60)",
        "'/' * N",
    ],
    "log_prefixes": [
        "'W1129 08:50:22.1' + ' ' * (N // 2) + '1' * (N // 2)",
        "'W1129 08:50:22.' + '1' * N",
        "'W1129 08:50:22.1 1\\n' * (N // 19)",
    ],
    "cuda_toolkit_warning": [
        "'W torch/utils/cpp_extension.py:' + '1' * N",
        "\"W torch/utils/cpp_extension.py:1] No CUDA runtime is found, using CUDA_HOME='\" + 'a' * N",
        "'W torch/utils/cpp_extension.py:1] [' + '0/' * (N // 2)",
    ],
    "temporary_paths": [
        "(tempfile.gettempdir() + '/tmp') * (N // 10)",
        "tempfile.gettempdir() + '/page-' + 'a' * N",
        "(tempfile.gettempdir() + '/handbook-build-a/page-a/') * (N // 40)",
        "tempfile.gettempdir() + '/handbook-build-' + 'a' * N",
    ],
    "addresses": [
        "'0x1234567 ' * (N // 10)",
        "'0x' + 'f' * N",
        "'0x' * (N // 2)",
    ],
    "trailing_whitespace": [
        "' ' * N + 'x'",
        "' \\t' * (N // 2) + 'x\\n' + ' ' * N",
    ],
}
SIZE = 4 * 2**20
# Each input takes well under a second here; a quadratic normaliser takes hours.
BOUND_SECONDS = 10


def test_every_normaliser_has_adversarial_inputs():
    assert [normaliser.__name__ for normaliser in NORMALISERS] == list(ADVERSARIAL)


@pytest.mark.parametrize("name", ADVERSARIAL)
def test_each_normaliser_is_linear_on_megabytes(name, timed):
    seconds = timed(f"""
        import sysconfig, tempfile, time
        from pathlib import Path
        from handbook.execution import normalise
        N = {SIZE}
        texts = [{", ".join(ADVERSARIAL[name])}]
        started = time.perf_counter()
        for text in texts:
            getattr(normalise, {name!r})(text, Path("/somewhere/repo"))
        print(time.perf_counter() - started)
    """)
    assert seconds < BOUND_SECONDS
