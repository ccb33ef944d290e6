"""Values quoted from outputs: resolved per edition, and a clear failure when they cannot be."""

from __future__ import annotations

from handbook.prose.quotes import resolve_quotes

OUTPUTS = {
    ("setup.md", "version"): "torch.__version__ : 2.15.0+cu132\nrows: 96",
    ("dispatch.md", "table"): "rows in the table: 97",
}


def output_of(page, block):
    return OUTPUTS.get((page, block))


def test_group_whole_match_and_other_page():
    markdown = (
        "The wheel `<!-- out version /__version__\\s*: (\\S+)/ -->` has <!-- out version /rows: \\d+/ -->,\n"
        "and add has <!-- out dispatch.md#table /table: (\\d+)/ -->.\n"
    )
    quoted = resolve_quotes(markdown, "setup.md", output_of)
    assert quoted.errors == []
    assert quoted.markdown == "The wheel `2.15.0+cu132` has rows: 96,\nand add has 97.\n"
    assert quoted.count == 3


def test_fenced_code_is_left_alone():
    markdown = "```text\n<!-- out version /rows: (\\d+)/ -->\n```\n"
    assert resolve_quotes(markdown, "setup.md", output_of).markdown == markdown


def test_each_unresolvable_quote_names_page_and_line():
    markdown = "ok\n<!-- out gone /x/ -->\n<!-- out version /nothing here/ -->\n<!-- out version /(/ -->\n"
    errors = resolve_quotes(markdown, "setup.md", output_of).errors
    assert errors[0].startswith("docs/setup.md:2: <!-- out gone /x/ -->: docs/setup.md has no block 'gone'")
    assert errors[1].startswith("docs/setup.md:3: ") and "printed nothing matching /nothing here/" in errors[1]
    assert errors[2].startswith("docs/setup.md:4: ") and "not a valid regular expression" in errors[2]


PAGE = """
# Demo

## Shapes

See [TensorImpl](pytorch:c10/core/TensorImpl.h#TensorImpl).

```python exec="on"
print("strides:", (3, 1))
print("rows: 95")
```

The tensor has <!-- out block-1 /rows: (\\d+)/ --> rows.
"""


def test_a_build_shows_the_value_and_fails_on_a_quote_that_matches_nothing(project):
    project.write("docs/demo.md", PAGE)
    assert project.goldens().returncode == 0
    result = project.build()
    assert result.returncode == 0, result.stderr
    assert "The tensor has 95 rows." in (project.root / "site/demo/index.html").read_text()
    project.write("docs/demo.md", PAGE.replace("rows: (", "columns: ("))
    result = project.build()
    assert result.returncode != 0
    assert (
        "docs/demo.md:12: <!-- out block-1 /columns: (\\d+)/ -->: block 'block-1' printed nothing matching"
        in result.stderr
    )
