"""`python -m handbook`: bad input and failing tools end in a message, never a traceback."""

from __future__ import annotations

import subprocess
import sys

import handbook.__main__ as cli
from handbook.switches import SettingError


def run_cli(monkeypatch, tmp_path, failure: BaseException) -> int:
    def fail(*args, **kwargs):
        raise failure

    monkeypatch.setattr(cli, "drift_report", fail)
    monkeypatch.setattr(sys, "argv", ["handbook", "--root", str(tmp_path), "drift-report"])
    return cli.main()


def test_a_tool_that_fails_is_named_with_what_it_said(monkeypatch, tmp_path, capsys):
    failure = subprocess.CalledProcessError(128, ["git", "rev-parse", "HEAD"], stderr="fatal: not a git repository")
    assert run_cli(monkeypatch, tmp_path, failure) == 1
    assert capsys.readouterr().err == "error: `git rev-parse HEAD` exited with 128:\nfatal: not a git repository\n"


def test_a_bad_setting_is_its_message(monkeypatch, tmp_path, capsys):
    assert run_cli(monkeypatch, tmp_path, SettingError("DOCS_BLOCK_TIMEOUT='nan' is not a number of seconds")) == 1
    assert capsys.readouterr().err == "error: DOCS_BLOCK_TIMEOUT='nan' is not a number of seconds\n"
