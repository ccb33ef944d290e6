"""Figures: the SVG file a block declares on its fence (`figure="segments.svg"`), made safe and stable.

A block draws its figure as a reader would (`fig.savefig("segments.svg")`) into its page's
working directory; the page process reads the file after the block, and the build keeps it
beside the block's output. What a page writes is untrusted (DESIGN, principle 8), and the
site serves the file, so it is parsed here with no DTD and no entities, and only an
allow-list of SVG elements and attributes is kept: no script, no foreignObject, no event
handler, no reference out of the document. It is also normalised, so that a recording
holds only what the figure shows: <metadata> (matplotlib's version, the date) and comments go.

Pages draw with `matplotlibrc` (beside this module; the pipeline points MATPLOTLIBRC at it):
a fixed hash salt for the ids matplotlib makes, text kept as text, one font, one size.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import xml.etree.ElementTree as ElementTree
from pathlib import Path

# The most a figure may hold: an SVG that teaches one thing is tens of kilobytes.
MAX_FIGURE_BYTES = 2**20
MATPLOTLIBRC = Path(__file__).with_name("matplotlibrc")

SVG = "http://www.w3.org/2000/svg"
XLINK = "http://www.w3.org/1999/xlink"
XML = "http://www.w3.org/XML/1998/namespace"

# A figure's file name: a plain name ending in .svg, never a path.
FIGURE_NAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.-]{0,95}\.svg")

# Left out whole, with all they hold: what the figure shows is elsewhere.
DROPPED = {"metadata"}
ELEMENTS = {
    "svg", "g", "defs", "style", "title", "desc", "symbol", "use",
    "path", "rect", "circle", "ellipse", "line", "polyline", "polygon",
    "text", "tspan",
    "clipPath", "mask", "pattern", "marker", "linearGradient", "radialGradient", "stop",
}  # fmt: skip
ATTRIBUTES = {
    "id", "class", "style", "transform", "version", "viewBox", "preserveAspectRatio", "width", "height",
    "x", "y", "x1", "y1", "x2", "y2", "cx", "cy", "r", "rx", "ry", "fx", "fy", "d", "points", "dx", "dy",
    "rotate", "textLength", "lengthAdjust", "offset", "type",
    "fill", "fill-opacity", "fill-rule", "stroke", "stroke-width", "stroke-opacity", "stroke-linecap",
    "stroke-linejoin", "stroke-dasharray", "stroke-dashoffset", "stroke-miterlimit", "opacity", "color",
    "clip-path", "clip-rule", "mask", "visibility", "display", "vector-effect", "shape-rendering",
    "font-family", "font-size", "font-weight", "font-style", "font-variant", "font-stretch", "text-anchor",
    "dominant-baseline", "alignment-baseline", "baseline-shift", "letter-spacing", "word-spacing",
    "text-rendering", "writing-mode", "direction", "paint-order",
    "marker-start", "marker-mid", "marker-end", "markerWidth", "markerHeight", "markerUnits", "refX", "refY",
    "orient", "patternUnits", "patternContentUnits", "patternTransform", "gradientUnits", "gradientTransform",
    "spreadMethod", "stop-color", "stop-opacity", "clipPathUnits", "maskUnits", "maskContentUnits",
    f"{{{XLINK}}}href", "href", f"{{{XML}}}space",
}  # fmt: skip
REFERENCES = {f"{{{XLINK}}}href", "href"}
# Only a reference to an element of the same document: `#p1a2b3c`.
LOCAL_REFERENCE = re.compile(r"#[A-Za-z_][\w.:-]*")
URL = re.compile(r"url\(\s*(?P<target>[^)]*?)\s*\)", re.IGNORECASE)
# The one document type declaration kept (and dropped): matplotlib's, naming SVG 1.1's public DTD,
# with no internal subset, so no entity can be declared.
XML_DECLARATION = re.compile(r"\A\s*<\?xml[^>]*\?>")
PUBLIC_DOCTYPE = re.compile(r'\A\s*<!DOCTYPE\s+svg\s+PUBLIC\s+"[^"<>\[\]]*"\s+"[^"<>\[\]]*"\s*>')


def build_font_cache(directory: Path) -> None:
    """matplotlib's font list, built once into `directory` (the pages' MPLCONFIGDIR) before any page runs:
    the page that built it would print "Matplotlib is building the font cache" into a block's output, and
    two pages building it at once would race. In a child, so that the build does not import matplotlib."""
    if any(directory.glob("fontlist-*.json")):
        return
    environment = {**os.environ, "MPLCONFIGDIR": str(directory)}
    subprocess.run(
        [sys.executable, "-c", "import matplotlib.font_manager"], env=environment, capture_output=True, timeout=300
    )


class FigureError(ValueError):
    """A figure the site cannot show: missing, too large, not SVG, or holding what an SVG must not."""


def check_name(name: str) -> str | None:
    """Why `name` cannot name a figure file, or None."""
    if not FIGURE_NAME.fullmatch(name):
        return (
            f"figure={name!r} is not a file name ending in .svg (up to 100 letters, digits, '_', '-' and '.', "
            "no directory): the block saves it into its page's working directory"
        )
    return None


def figure_path(page: str, block_id: str) -> str:
    """Where a block's figure is among the site's files: `memory.md`, `segments` -> `figures/memory/segments.svg`."""
    return f"figures/{page.removesuffix('.md')}/{block_id}.svg"


def sanitise(data: bytes) -> str:
    """The SVG figure `data`, with only what the allow-lists keep, as normalised text; FigureError for
    anything that is not an SVG, or that holds a DTD, an entity, a script, an event handler or a
    reference outside the document."""
    if len(data) > MAX_FIGURE_BYTES:
        raise FigureError(f"the figure is {len(data):,} bytes, more than the {MAX_FIGURE_BYTES:,} a figure may hold")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise FigureError(f"the figure is not UTF-8 text: {error}") from None
    text = XML_DECLARATION.sub("", text, count=1)
    text = PUBLIC_DOCTYPE.sub("", text, count=1)
    if re.search(r"<!(DOCTYPE|ENTITY|ELEMENT|ATTLIST)", text, re.IGNORECASE):
        raise FigureError("the figure declares a DTD or entities, which a figure may not (billion laughs, XXE)")
    try:
        root = ElementTree.fromstring(text)  # comments and processing instructions are left out
    except ElementTree.ParseError as error:
        raise FigureError(f"the figure is not well-formed XML: {error}") from None
    if root.tag != f"{{{SVG}}}svg":
        raise FigureError(f"the figure's root element is {_name(root.tag)!r}, not an SVG <svg>")
    _clean(root)
    ElementTree.register_namespace("", SVG)
    ElementTree.register_namespace("xlink", XLINK)
    return ElementTree.tostring(root, encoding="unicode").strip() + "\n"


def _name(tag: str) -> str:
    namespace, _, local = tag[1:].partition("}") if tag.startswith("{") else ("", "", tag)
    return local if namespace == SVG else f"{{{namespace}}}{local}" if namespace else local


def _clean(element: ElementTree.Element) -> None:
    for child in list(element):
        if not isinstance(child.tag, str):
            element.remove(child)
            continue
        local = _name(child.tag)
        if local in DROPPED:
            _remove_keeping_tail(element, child)
            continue
        if local not in ELEMENTS or not child.tag.startswith(f"{{{SVG}}}"):
            raise FigureError(f"the figure holds a <{local}> element, which figures may not hold")
        _clean(child)
    for name, value in element.attrib.items():
        _check_attribute(_name(element.tag), _attribute_name(name), name, value)
    if _name(element.tag) == "style":
        _check_css(element.text or "", "<style>")


def _remove_keeping_tail(parent: ElementTree.Element, child: ElementTree.Element) -> None:
    """Drop `child`; the whitespace after it stays where it was (ElementTree keeps it on the element)."""
    index = list(parent).index(child)
    tail = child.tail or ""
    if index:
        previous = parent[index - 1]
        previous.tail = (previous.tail or "") if tail.strip() == "" else (previous.tail or "") + tail
    parent.remove(child)


def _attribute_name(name: str) -> str:
    return {f"{{{XLINK}}}href": "xlink:href", f"{{{XML}}}space": "xml:space"}.get(name, name)


def _check_attribute(element: str, shown: str, name: str, value: str) -> None:
    if shown.lower().startswith("on"):
        raise FigureError(f"the figure's <{element}> has an event handler ({shown}=), which figures may not have")
    if name not in ATTRIBUTES:
        raise FigureError(f"the figure's <{element}> has an attribute {shown}=, which figures may not have")
    if name in REFERENCES and not LOCAL_REFERENCE.fullmatch(value.strip()):
        raise FigureError(
            f"the figure's <{element}> refers to {value[:80]!r}: a figure may refer only to its own elements (#id)"
        )
    if name == "type" and value.strip() != "text/css":
        raise FigureError(f"the figure's <{element}> has type={value[:80]!r}: only a text/css <style> is kept")
    _check_css(value, f"<{element}> {shown}=")


# The CSS functions a figure may call: colours, transforms, and url() to its own elements. Any other
# may fetch (image-set(), -webkit-image-set() take a bare string as an address, cross-fade(), image()).
CSS_FUNCTIONS = {"url", "rgb", "rgba", "hsl", "hsla", "matrix", "translate", "scale", "rotate", "skewx", "skewy"}
CSS_FUNCTION = re.compile(r"(?P<name>-?[A-Za-z_][\w-]*)\s*\(")


def _check_css(text: str, where: str) -> None:
    """Style text may not fetch anything: no @import, no function but those that cannot fetch, no url()
    but to an element of the figure."""
    if "@import" in text.lower() or "\\" in text:  # an escape could spell either
        raise FigureError(f"the figure's {where} imports a stylesheet or holds a CSS escape, which figures may not")
    for match in CSS_FUNCTION.finditer(text):
        if match["name"].lower() not in CSS_FUNCTIONS:
            raise FigureError(
                f"the figure's {where} calls {match['name'][:40]}(), which figures may not "
                f"(only {', '.join(sorted(CSS_FUNCTIONS))})"
            )
    for match in URL.finditer(text):
        target = match["target"].strip("'\"")
        if not LOCAL_REFERENCE.fullmatch(target):
            raise FigureError(
                f"the figure's {where} refers to {target[:80]!r}: a figure may refer only to its own elements (#id)"
            )
