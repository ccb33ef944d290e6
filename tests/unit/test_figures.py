"""Figures: what the sanitiser keeps of an SVG a page wrote, and what it refuses."""

from __future__ import annotations

import pytest

from handbook.execution.figures import FigureError, check_name, sanitise

SVG_NS = 'xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink"'
# What matplotlib writes, cut down: declaration, DTD, metadata, a style, clip paths, uses, text.
MATPLOTLIB_LIKE = f"""<?xml version="1.0" encoding="utf-8" standalone="no"?>
<!DOCTYPE svg PUBLIC "-//W3C//DTD SVG 1.1//EN"
  "http://www.w3.org/Graphics/SVG/1.1/DTD/svg11.dtd">
<svg {SVG_NS} width="200pt" height="100pt" viewBox="0 0 200 100" version="1.1">
 <metadata>
  <rdf:RDF xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
   <dc:date>2026-12-04T02:00:00</dc:date><dc:title>Matplotlib v3.11.2, https://matplotlib.org/</dc:title>
  </rdf:RDF>
 </metadata>
 <!-- a comment -->
 <defs>
  <style type="text/css">*{{stroke-linejoin: round; stroke-linecap: butt}}</style>
  <path id="m1" d="M 0 0 L 0 3.5" style="stroke: #000000"/>
 </defs>
 <g id="figure_1">
  <path d="M 0 100 L 200 100 z" clip-path="url(#p1)" style="fill: #ffffff"/>
  <use xlink:href="#m1" x="10" y="90" style="stroke: #000000"/>
  <text style="font: 10px 'DejaVu Sans'; text-anchor: middle" x="100" y="50">a &lt; b</text>
 </g>
 <defs><clipPath id="p1"><rect x="0" y="0" width="200" height="100"/></clipPath></defs>
</svg>
"""


def test_matplotlibs_svg_is_kept_without_its_metadata_and_comments():
    kept = sanitise(MATPLOTLIB_LIKE.encode())
    assert kept.startswith('<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink"')
    for gone in ("metadata", "Matplotlib v", "2026", "comment", "DOCTYPE", "<?xml"):
        assert gone not in kept
    for shown in ('clip-path="url(#p1)"', 'xlink:href="#m1"', "a &lt; b", "DejaVu Sans", "<clipPath", "<style"):
        assert shown in kept
    assert sanitise(kept.encode()) == kept  # normalised once and for all


def svg(body: str, root_attributes: str = "") -> bytes:
    return f"<svg {SVG_NS} {root_attributes}>{body}</svg>".encode()


@pytest.mark.parametrize(
    "data, message",
    [
        (svg("<script>alert(1)</script>"), "holds a <script> element"),
        (svg("<foreignObject><p>x</p></foreignObject>"), "holds a <foreignObject> element"),
        (svg('<rect onclick="alert(1)"/>'), "has an event handler (onclick=)"),
        (svg("", 'onload="alert(1)"'), "has an event handler (onload=)"),
        (svg('<use xlink:href="https://evil.example/x.svg#a"/>'), "refers to 'https://evil.example/x.svg#a'"),
        (svg('<use href="data:image/svg+xml,&lt;svg/&gt;"/>'), "refers to 'data:image/svg+xml,<svg/>'"),
        (svg('<image xlink:href="data:image/png;base64,AAAA"/>'), "holds a <image> element"),
        (svg('<a xlink:href="javascript:alert(1)"><rect/></a>'), "holds a <a> element"),
        (svg('<rect style="fill: url(https://evil.example/p)"/>'), "refers to 'https://evil.example/p'"),
        (svg("<rect fill=\"url('//evil.example/p')\"/>"), "refers to '//evil.example/p'"),
        (svg("<style>@import url(https://evil.example/s.css);</style>"), "imports a stylesheet"),
        (svg("<style>rect{fill:u\\72l(https://x)}</style>"), "holds a CSS escape"),
        (svg('<rect xml:base="https://evil.example/"/>'), "has an attribute"),
        # A bare string is an address to these: no url() to check.
        (svg("<style>rect{fill:image-set('https://evil.example/p' 1x)}</style>"), "calls image-set()"),
        (svg("<rect style=\"fill: -webkit-image-set('//evil.example/p' 1x)\"/>"), "calls -webkit-image-set()"),
        (svg("<style>rect{fill:cross-fade('https://evil.example/p', red)}</style>"), "calls cross-fade()"),
        (svg("<html:p xmlns:html='http://www.w3.org/1999/xhtml'/>"), "holds a"),
        (b'<!DOCTYPE svg [<!ENTITY a "aaaa">]><svg xmlns="http://www.w3.org/2000/svg">&a;</svg>', "DTD or entities"),
        (
            b'<!DOCTYPE svg [<!ENTITY x SYSTEM "file:///etc/passwd">]><svg xmlns="http://www.w3.org/2000/svg">&x;</svg>',
            "DTD or entities",
        ),
        (b'<svg xmlns="http://www.w3.org/2000/svg">&undefined;</svg>', "not well-formed XML"),
        (b"<html><body/></html>", "not an SVG <svg>"),
        (b"not xml", "not well-formed XML"),
        (b"\xff\xfe", "not UTF-8"),
        (b" " * (2**20 + 1), "more than the 1,048,576 a figure may hold"),
    ],
)
def test_what_could_run_or_fetch_is_refused(data, message):
    with pytest.raises(FigureError) as refused:
        sanitise(data)
    assert message in str(refused.value)


@pytest.mark.parametrize("name", ["segments.svg", "a-b_c.1.svg"])
def test_a_figure_name_is_a_plain_svg_file_name(name):
    assert check_name(name) is None


@pytest.mark.parametrize("name", ["../a.svg", "a/b.svg", ".a.svg", "a.png", "a.svg.txt", "", "a" * 120 + ".svg"])
def test_anything_else_is_not_a_figure_name(name):
    assert "is not a file name ending in .svg" in check_name(name)
