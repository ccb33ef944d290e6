"""What changed, built: a changed block's note and its entry under its section, linked to the block."""

from __future__ import annotations

import re

from conftest import INSTALLED

from handbook.environment import minor_version

PAGE = """
# Demo

## Strides of a view

See [TensorImpl](pytorch:c10/core/TensorImpl.h#TensorImpl).

```python exec="on"
print("same in every release")
```

```python exec="on"
print("strides: (3, 1)")
```
"""

# The build's own release (a project the tests build runs the installed torch) and an older one.
MINOR = minor_version(INSTALLED)
CHANGES = f"# What changed\n\n## From torch 2.12 to {MINOR}\n\n<!-- what-changed 2.12.0 {INSTALLED} -->\n"


def test_changed_block_has_a_note_and_an_entry_under_its_section_linked_to_the_block(project):
    project.write("docs/demo.md", PAGE)
    project.write("docs/what-changed.md", CHANGES)
    config = project.root / "mkdocs.yml"
    config.write_text(
        config.read_text().replace("sections_exempt: [index.md]", "sections_exempt: [index.md, what-changed.md]")
    )
    assert project.goldens().returncode == 0
    # An older release whose second block printed something else.
    project.write("recordings/torch-2.12.0/demo/block-1.txt", "same in every release\n")
    project.write("recordings/torch-2.12.0/demo/block-2.txt", "strides: (1, 3)\n")
    result = project.build()
    assert result.returncode == 0, result.stderr
    page = (project.root / "site/demo/index.html").read_text()
    notes = re.findall(rf'<p class="handbook-changed"><a href="([^"]+)">Output changed in torch {MINOR}</a></p>', page)
    assert notes == [f"../what-changed/#changed-{MINOR}-demo-block-2"]
    changes = (project.root / "site/what-changed/index.html").read_text()
    headings = re.findall(r"<h([34])[^>]*>(.*?)<", changes)
    assert ("3", "Demo") in headings and "<p><strong>Strides of a view</strong></p>" in changes
    assert not [title for level, title in headings if level == "4" and title != "Keyboard Shortcuts"]
    # "in context" lands on the block itself, whose place on its page has that id.
    assert '<a href="../demo/#block-block-2">Block 2 in context</a>' in changes
    assert '<div id="block-block-2" class="highlight">' in page  # the block's own listing (page_weight)
    assert f'id="changed-{MINOR}-demo-block-2"' in changes and "block-1" not in changes
    assert "-strides: (1, 3)" in changes and "+strides: (3, 1)" in changes
    assert "Of 2 recorded outputs, <strong>1 differ</strong>" in changes
