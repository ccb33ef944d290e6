"""tools/compare_sites.py: two builds of one tree agree file by file, but for what a build writes of itself."""

from __future__ import annotations

import gzip
import json
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "tools"))

from compare_sites import differences  # noqa: E402


def a_site(root: Path, generator: str, generated: str, page: str = "<p>tensor(6)</p>") -> Path:
    (root / "ch").mkdir(parents=True)
    head = f'<meta name="generator" content="{generator}">'
    (root / "index.html").write_text(f"<html>{head}<span>Python 3.11, on cpu, on {generated[:10]}.</span></html>")
    (root / "ch" / "index.html").write_text(f"<html>{head}{page}</html>")
    report = {"generated": generated, "seconds": 1.0, "blocks": [{"id": "b", "status": "ok", "seconds": 0.1}]}
    (root / "execution-report.json").write_text(json.dumps(report))
    (root / "sitemap.xml.gz").write_bytes(gzip.compress(f"<lastmod>{generated[:10]}</lastmod>".encode()))
    return root


def test_two_builds_differing_only_in_generator_and_times_agree(tmp_path):
    mkdocs = a_site(tmp_path / "a", "mkdocs-1.6.1, mkdocs-material-9.8.1", "2026-12-01T23:59:59")
    properdocs = a_site(tmp_path / "b", "properdocs-1.6.7, mkdocs-material-9.8.1", "2026-12-02T00:00:01")
    assert differences(mkdocs, properdocs) == []


def test_a_page_that_differs_and_a_file_only_one_has_are_named(tmp_path):
    site = a_site(tmp_path / "a", "mkdocs-1.6.1", "2026-12-01T10:00:00")
    other = a_site(tmp_path / "b", "mkdocs-1.6.1", "2026-12-01T10:00:00", page="<p>tensor(7)</p>")
    (other / "extra.html").write_text("x")
    assert differences(site, other) == [f"only in {other}: extra.html", "differs: ch/index.html"]


def test_a_status_that_differs_in_the_report_is_a_difference(tmp_path):
    site = a_site(tmp_path / "a", "mkdocs-1.6.1", "2026-12-01T10:00:00")
    other = a_site(tmp_path / "b", "mkdocs-1.6.1", "2026-12-01T10:00:00")
    report = json.loads((other / "execution-report.json").read_text())
    report["blocks"][0]["status"] = "cached"
    (other / "execution-report.json").write_text(json.dumps(report))
    assert differences(site, other) == ["differs: execution-report.json"]


def test_the_command_fails_naming_the_difference(tmp_path):
    site = a_site(tmp_path / "a", "mkdocs-1.6.1", "2026-12-01T10:00:00")
    other = a_site(tmp_path / "b", "mkdocs-1.6.1", "2026-12-01T10:00:00", page="<p>changed</p>")
    command = [sys.executable, str(REPO / "tools" / "compare_sites.py")]
    failed = subprocess.run([*command, str(site), str(other)], capture_output=True, text=True)
    assert failed.returncode == 1 and "differs: ch/index.html" in failed.stderr
    agreed = subprocess.run([*command, str(site), str(site)], capture_output=True, text=True)
    assert agreed.returncode == 0 and "0 difference(s)" in agreed.stderr
    not_a_site = subprocess.run([*command, str(site), str(tmp_path)], capture_output=True, text=True)
    assert not_a_site.returncode == 2 and "is not a built site" in not_a_site.stderr
