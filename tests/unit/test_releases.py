"""The recorded releases, in packaging's order, and the rules that pick one."""

from __future__ import annotations

from handbook.releases import nearest_release, previous_release, recorded_releases

# Synthetic data: release directories made up to be ordered


def test_recorded_releases_follow_packagings_order_and_each_has_its_neighbours(tmp_path):
    for release in ("2.16.0", "2.16.0rc1", "2.15.0", "2.16.0rc2", "2.14.1"):
        (tmp_path / "recordings" / f"torch-{release}" / "page").mkdir(parents=True)
        (tmp_path / "recordings" / f"torch-{release}" / "page" / "block-1.txt").write_text("1\n")
    assert recorded_releases(tmp_path) == ["2.14.1", "2.15.0", "2.16.0rc1", "2.16.0rc2", "2.16.0"]
    assert previous_release(tmp_path, "2.16.0") == "2.16.0rc2"
    assert previous_release(tmp_path, "2.14.1") is None
    assert nearest_release(tmp_path, "2.17.0") in {"2.16.0rc1", "2.16.0rc2", "2.16.0"}
