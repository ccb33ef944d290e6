"""The execute step's record: keyed on the limits of the settings its entry read, not on the environment."""

from __future__ import annotations

import dataclasses

from handbook import switches
from handbook.run_record import Record


def test_the_key_takes_the_limits_from_the_settings_given(tmp_path, monkeypatch):
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs/index.md").write_text("# Home\n")
    monkeypatch.setenv(switches.BLOCK_TIMEOUT, "not read: the entry read the settings already")
    given = switches.Settings(cache_dir=tmp_path / "caches")
    key = Record(tmp_path, given).key
    assert Record(tmp_path, given).key == key
    for switch in switches.SWITCHES:
        field = next(f for f in dataclasses.fields(switches.Settings) if f.name == switch.field)
        changed = {
            "block_timeout": 5.0,
            "page_memory": 2**30,
            "cache": False,
            "execute": False,
            "read_only_tree": False,
            "cache_dir": tmp_path / "other-caches",
        }
        value = changed.get(field.name, ("X",) if field.default == () else "x")
        other = Record(tmp_path, dataclasses.replace(given, **{field.name: value}))
        assert (other.key != key) == switch.limit, switch.name  # a limit changes what a page's run ends in
