"""`mkdocs serve --dirty` (`make serve`), served: a snippet edit renders its page again and nothing else."""

from __future__ import annotations

import json
import subprocess
import sys
import urllib.request

from test_plugin import PAGE, SNIPPET, ServerLog, free_port

SERVED_CONFIG = """
site_name: test handbook
docs_dir: docs
watch: [snippets]
theme: material
plugins:
  - search
  - handbook:
      sections_exempt: [index.md, other.md]
  - markdown-exec:
      languages: [python, py]
markdown_extensions:
  - attr_list
  - pymdownx.snippets:
      base_path: ["."]
      check_paths: true
      dedent_subsections: true
  - pymdownx.superfences
"""


def test_under_serve_dirty_a_snippet_edit_renders_its_page_again_and_nothing_else(project):
    project.write("mkdocs.yml", SERVED_CONFIG)
    project.write("docs/demo.md", PAGE)
    project.write("docs/other.md", "# Other\n\n## Prose only\n\nNo block here.\n")
    snippet = project.write("snippets/demo/shapes.py", SNIPPET.format(injected=""))
    assert project.goldens().returncode == 0
    port = free_port()
    server = subprocess.Popen(
        [sys.executable, "-m", "mkdocs", "serve", "--dirty", "--dev-addr", f"127.0.0.1:{port}"],
        cwd=project.root,
        env=project.environment(),
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    log = ServerLog(server)

    def served(path: str) -> str:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/{path}", timeout=300) as response:
            return response.read().decode()

    try:
        log.wait_for("Serving on")
        other = project.root / "docs/other.md"
        other.write_text(other.read_text().replace("No block here.", "No block here, edited."))
        log.wait_for("pages whose inputs changed, rendered again: other.md")
        log.wait_for_rebuild()
        # The snippet's code changes, its page's Markdown does not: MkDocs' own rule would skip it.
        snippet.write_text(
            snippet.read_text().replace("t = torch.arange(6).view(2, 3)", "t = torch.arange(6).view(2, 3)  # 2 rows")
        )
        log.wait_for("pages whose inputs changed, rendered again: demo.md")
        log.wait_for_rebuild()
        page = served("demo/")
        index = json.loads(served("search/search_index.json"))
    finally:
        server.terminate()
        server.wait(timeout=30)
    rendered = [line.split("rendered again: ")[1] for line in log.text().splitlines() if "rendered again" in line]
    assert rendered == ["other.md", "demo.md"]  # each rebuild, the one page its edit changed
    assert "# 2 rows" in page
    locations = [e["location"] for e in index["docs"]]
    assert len(locations) == len(set(locations)), locations  # each section indexed once
    assert {"demo/", "other/", "other/#prose-only"} <= set(locations)
    assert any("edited" in e["text"] for e in index["docs"] if e["location"].startswith("other/"))
    assert "A 'dirty' build" not in log.text() and "Traceback" not in log.text()
