import sysconfig
from pathlib import Path

from handbook.normalise import normalise

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

