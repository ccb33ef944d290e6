"""Every page of each edition's built site is valid HTML by the W3C Nu validator (vnu-jar, as
package-lock.json pins it; Java runs it), but for errors that Material's own templates make,
each listed below with why it is excepted. An error in the project's own markup fails."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
from site_browser import EDITION_SITES, stale

REPO = Path(__file__).resolve().parents[2]
VNU = REPO / "node_modules/vnu-jar/build/dist/vnu.jar"

# (the start of the validator's message, text its extract holds): Material's markup, not ours.
MATERIAL = [
    # base.html's drawer and search toggles: hidden checkboxes with autocomplete="off", so that
    # Firefox does not restore a toggle's state on reload; the attribute is meant for text inputs.
    ("Attribute “autocomplete” is only allowed when the input type is", 'class="md-toggle"'),
    # partials/nav-item.html: the label of a navigation section (the Labs section, `navigation.sections`)
    # is written `tabindex="{{ tabindex }}"` with tabindex set only for a label that is not a section, so
    # a section's is `tabindex=""`; a browser reads an invalid tabindex as none, which is what it means.
    ("Bad value “” for attribute “tabindex” on element “label”", 'class="md-nav__link"'),
]


def excepted(message: dict) -> bool:
    text, extract = message.get("message", ""), message.get("extract", "")
    return any(text.startswith(start) and held in extract for start, held in MATERIAL)


def validate(pages: list[Path]) -> list[dict]:
    java = shutil.which("java")
    assert java, "the Nu validator needs Java (a JRE, 11 or newer)"
    assert VNU.is_file(), f"{VNU} is missing: `npm ci` installs it (make test does)"
    result = subprocess.run(
        [java, "-jar", str(VNU), "--format", "json", "--errors-only", *map(str, pages)],
        capture_output=True,
        text=True,
        timeout=600,
    )
    return json.loads(result.stderr)["messages"]  # the validator reports on stderr


def describe(message: dict) -> str:
    where = message.get("url", "").removeprefix("file:")
    return f"{where}:{message.get('lastLine', '?')}: {message.get('message')}\n    {message.get('extract', '').strip()}"


@pytest.mark.parametrize("release", sorted(EDITION_SITES))
def test_every_page_of_each_edition_is_valid_html(release):
    root = EDITION_SITES[release]
    problem = stale(root)
    assert problem is None, problem
    pages = sorted(root.rglob("*.html"))
    assert len(pages) > 10, f"only {len(pages)} pages in {root}"
    errors = [message for message in validate(pages) if not excepted(message)]
    assert not errors, f"{len(errors)} validation error(s):\n" + "\n".join(map(describe, errors))


def test_the_validator_finds_an_error_in_our_markup_and_excepts_only_materials(tmp_path):
    page = tmp_path / "page.html"
    page.write_text(
        '<!doctype html><html lang="en"><head><title>t</title></head><body>'
        '<input class="md-toggle" type="checkbox" id="__drawer" autocomplete="off">'
        '<p><div>a block in a paragraph</div></p><span id="x"></span><span id="x"></span></body></html>'
    )
    messages = validate([page])
    kept = [m["message"] for m in messages if not excepted(m)]
    assert len(messages) > len(kept)  # Material's toggle: found, and excepted
    assert any("Duplicate ID" in text for text in kept), kept
