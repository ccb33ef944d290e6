"""`mkdocs serve --dirty` (`make serve`): a rebuild renders again only what an edit changed."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

from mkdocs.structure.files import File, Files

from handbook import rebuilds


def test_changed_pages_are_those_whose_inputs_differ():
    assert rebuilds.changed({}, {"a.md": "1"}) == {"a.md"}
    assert rebuilds.changed({"a.md": "1", "b.md": "2"}, {"a.md": "1", "b.md": "3", "c.md": "4"}) == {"b.md", "c.md"}


def test_a_page_rendered_again_looks_stale_to_mkdocs_and_the_others_do_not(tmp_path):
    docs, site = tmp_path / "docs", tmp_path / "site"
    files = Files([File(name, str(docs), str(site), use_directory_urls=True) for name in ("a.md", "b.md")])
    for file in files:
        Path(file.abs_src_path).parent.mkdir(parents=True, exist_ok=True)
        Path(file.abs_src_path).write_text("# page")
        Path(file.abs_dest_path).parent.mkdir(parents=True, exist_ok=True)
        Path(file.abs_dest_path).write_text("<html>")  # built after its source was saved
    assert not any(file.is_modified() for file in files)
    rebuilds.render_again(files, {"a.md", "gone.md"})
    assert [file.src_uri for file in files if file.is_modified()] == ["a.md"]


def entry(location: str) -> dict:
    return {"location": location, "title": location, "text": ""}


def test_the_search_index_keeps_every_page_not_rendered_again_once():
    previous = [entry(""), entry("#home-section"), entry("a/"), entry("a/#one"), entry("b/"), entry("b/#two")]
    search = SimpleNamespace(
        search_index_prev=SimpleNamespace(entries=previous),
        search_index=SimpleNamespace(entries=[entry("b/"), entry("b/#three"), entry("")]),
    )
    rebuilds.merge_search_index({"material/search": search}, rendered={"", "b/"})
    assert [e["location"] for e in search.search_index.entries] == ["a/", "a/#one", "b/", "b/#three", ""]
    assert search.search_index_prev is None  # nothing left for Material to merge


def test_without_a_previous_index_nothing_is_merged():
    search = SimpleNamespace(search_index_prev=None, search_index=SimpleNamespace(entries=[entry("a/")]))
    rebuilds.merge_search_index({"material/search": search}, rendered={"a/"})
    rebuilds.merge_search_index({}, rendered={"a/"})  # a site without search
    assert [e["location"] for e in search.search_index.entries] == ["a/"]
