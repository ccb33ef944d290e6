"""The accessibility tests' own arithmetic: the report of axe's blocking findings and the WCAG
contrast ratio (tests/site_browser.py), without a browser."""

from __future__ import annotations

from site_browser import blocking_report, contrast


def test_axe_report_names_page_rule_and_element():
    found = {
        "tensors/": [
            {
                "rule": "color-contrast",
                "impact": "serious",
                "nodes": [
                    {
                        "target": "a > code",
                        "summary": "Fix any of the following:\n  Element has insufficient color contrast of 2.54",
                    }
                ],
            }
        ],
        "": [{"rule": "region", "impact": "moderate", "nodes": [{"target": "div", "summary": "x"}]}],
    }
    assert blocking_report(found) == [
        "/tensors/: color-contrast (serious) on 1 element(s), e.g. a > code: Element has insufficient color "
        "contrast of 2.54"
    ]
    assert round(contrast([255, 110, 66], [255, 255, 255]), 2) == 2.78  # the old link colour on white
    assert contrast([0, 0, 0, 1], [255, 255, 255]) == 21
