"""Values quoted from outputs, in a real build: the value is shown, and a quote that matches nothing
fails the build."""

from __future__ import annotations

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
