"""Links resolve to the lines that really define the symbol, in the installed files."""

import re
from pathlib import Path

import pytest

from handbook.environment import installed_torch
from handbook.execution.recordings import Recordings
from handbook.sources.links import SourceLinker, sections_without_links, source_anchors
from handbook.sources.tree import SourceError, SourceTree

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def linker():
    return SourceLinker(SourceTree(REPO))


@pytest.mark.parametrize(
    "target, text",
    [
        ("c10/core/TensorImpl.h#TensorImpl", "struct C10_API TensorImpl"),
        ("c10/core/TensorImpl.h#VariableVersion", "struct C10_API VariableVersion"),
        ("c10/core/TensorImpl.h#VariableVersion::bump", "void bump()"),
        ("aten/src/ATen/core/dispatch/Dispatcher.h#Dispatcher", "class TORCH_API Dispatcher"),
        ("aten/src/ATen/core/dispatch/Dispatcher.h#Dispatcher::call", "Dispatcher::call("),
        ("torch/library.h#TORCH_LIBRARY", "#define TORCH_LIBRARY("),
        ("torch/autograd/function.py#FunctionCtx.save_for_backward", "def save_for_backward(self"),
        ("torch/_library/custom_ops.py#custom_op", "def custom_op("),
        ("aten/src/ATen/native/native_functions.yaml#add.Tensor", "- func: add.Tensor("),
        ("tools/autograd/derivatives.yaml#mul.Tensor", "- name: mul.Tensor("),
    ],
)
def test_symbols_resolve_to_their_definition(linker, target, text):
    resolved = linker.resolve(target)
    source = linker.tree.file(resolved.path)
    installed = source.installed.read_text().splitlines()
    # repository line n is installed line n + offset (headers gain a wrapper line)
    first_line = installed[resolved.first - 1 + source.line_offset]
    window = "\n".join(installed[resolved.first - 1 + source.line_offset : resolved.first + 4 + source.line_offset])
    assert text in window, first_line
    assert resolved.last >= resolved.first
    assert (
        resolved.url
        == f"https://github.com/pytorch/pytorch/blob/{linker.tree.identity.tag}/{resolved.path}#L{resolved.first}-L{resolved.last}"
    )


def test_header_lines_are_shifted_by_the_wrapper(linker):
    resolved = linker.resolve("c10/core/TensorImpl.h#VariableVersion")
    installed = linker.tree.file("c10/core/TensorImpl.h").installed.read_text().splitlines()
    assert installed[0].startswith("#if !defined(TORCH_STABLE_ONLY)")
    assert "struct C10_API VariableVersion" in installed[resolved.first]  # installed line first+1, 0-based first


def test_path_only_link_for_files_not_in_the_wheel(linker):
    resolved = linker.resolve("torch/csrc/autograd/engine.cpp")
    assert resolved.first is None
    assert resolved.url.endswith(f"/{linker.tree.identity.tag}/torch/csrc/autograd/engine.cpp")


def test_unknown_symbol(linker):
    with pytest.raises(SourceError, match="symbol 'NoSuch' not found in c10/core/TensorImpl.h"):
        linker.resolve("c10/core/TensorImpl.h#NoSuch")


def test_ambiguous_symbol_lists_candidates_and_how_to_choose(linker):
    with pytest.raises(SourceError, match=r"ambiguous.*pick one with @N:\n  @1: line \d+"):
        linker.resolve("c10/core/TensorImpl.h#TensorImpl::TensorImpl")
    assert linker.resolve("c10/core/TensorImpl.h#TensorImpl::TensorImpl@2").first


def test_templates_of_generated_files_are_linked_from_torchgen(linker):
    """The wheel ships ATen's code-generation templates under torchgen/packaged/ATen/templates/."""
    resolved = linker.resolve("aten/src/ATen/templates/RegisterDispatchKey.cpp")
    assert resolved.url.endswith(f"/{linker.tree.identity.tag}/aten/src/ATen/templates/RegisterDispatchKey.cpp")
    assert linker.tree.file(resolved.path).installed.parent.match("torchgen/packaged/ATen/templates")
    tensor = linker.resolve("aten/src/ATen/templates/TensorBody.h#Tensor")
    assert linker.tree.file(tensor.path).lines()[tensor.first - 1].startswith("class TORCH_API Tensor")


def test_a_symbol_cannot_be_asked_of_a_file_outside_the_wheel(linker):
    with pytest.raises(SourceError, match="not shipped in the wheel"):
        linker.resolve("torch/csrc/autograd/engine.cpp#Engine")


def test_rewrite_renders_links_and_excerpts_and_collects_errors(linker):
    page = (
        "## One\n\nSee [x](pytorch:c10/core/TensorImpl.h#VariableVersion::bump).\n\n"
        '--8<-- "pytorch:c10/core/TensorImpl.h#VariableVersion::bump"\n\n'
        "```text\n[y](pytorch:not/rewritten.h)\n```\n\n[z](pytorch:nope.h)\n"
    )
    result = linker.rewrite(page, "p.md")
    tag = linker.tree.identity.tag
    assert "{: .pytorch-source }" in result.markdown and "data-tag" not in result.markdown
    assert "void bump()" in result.markdown  # the excerpt is the installed source
    assert "[y](pytorch:not/rewritten.h)" in result.markdown
    assert [c.section for c in result.citations] == ["One", "One"]
    missing = f"nope.h does not exist in PyTorch {tag}: it is neither shipped in the wheel nor in the source index"
    assert result.errors == [f"docs/p.md:11: pytorch:nope.h: {missing}"]


def test_a_translated_pages_link_errors_name_its_own_file(linker):
    translated = SourceLinker(linker.tree, "zh", "docs-zh")
    assert (
        translated.rewrite("# 张量\n\n见 [z](pytorch:nope.h)。\n", "tensors.md")
        .errors[0]
        .startswith("docs-zh/tensors.md:3: pytorch:nope.h: ")
    )


def test_documentation_links_go_to_the_editions_release_not_stable(linker):
    minor = ".".join(linker.tree.identity.release.split(".")[:2])
    page = "See [the notes](pytorch-docs:notes/cuda.html#memory-management) and [home](pytorch-docs:).\n"
    result = linker.rewrite(page, "p.md")
    assert result.markdown == (
        f"See [the notes](https://docs.pytorch.org/docs/{minor}/notes/cuda.html#memory-management) and "
        f"[home](https://docs.pytorch.org/docs/{minor}/).\n"
    )
    assert linker.rewrite("[n](pytorch-docs:notes/cuda.html)\n", "p.md", plain=True).markdown == (
        f"[n](https://docs.pytorch.org/docs/{minor}/notes/cuda.html)\n"
    )


@pytest.mark.parametrize("path", ["../escape.html", "javascript:void", "https://elsewhere.example/x.html"])
def test_a_documentation_link_that_is_not_a_path_of_its_site_fails_naming_the_line(linker, path):
    result = linker.rewrite(f"# T\n\n[x](pytorch-docs:{path})\n", "p.md")
    assert result.errors == [
        f"docs/p.md:3: pytorch-docs:{path}: not a path of PyTorch's documentation (lower-case words, "
        "`notes/cuda.html#anchor`, `generated/torch.cuda.memory_stats.html`, or empty for its home)"
    ]


def test_sections_without_links():
    page = (
        "# T\n\nintro\n\n## Linked\n\n[a](pytorch:x.h)\n\n## Bare\n\ntext\n\n"
        "### Sub\n\n```text\n[a](pytorch:x.h)\n```\n"
    )
    assert sections_without_links(page) == ["Bare"]


def test_a_section_without_a_space_after_its_hashes_still_needs_a_link():
    # Python-Markdown renders `##Bare` as an h2; the check's own pattern once skipped it
    page = "# T\n\n## Linked ##\n\n[a](pytorch:x.h)\n\n##Bare\n\ntext\n\n# Appendix\n\n[a](pytorch:x.h)\n"
    assert sections_without_links(page) == ["Bare"]


def test_resolving_many_links_is_fast(linker):
    import time

    targets = [
        "c10/core/TensorImpl.h#TensorImpl",
        "c10/core/StorageImpl.h#StorageImpl",
        "aten/src/ATen/native/native_functions.yaml#mul.Tensor",
        "tools/autograd/derivatives.yaml#add.Tensor",
        "torch/autograd/function.py#Function",
        "torch/csrc/autograd/engine.cpp",
    ]
    fresh = SourceLinker(SourceTree(REPO))
    started = time.perf_counter()
    for target in targets:
        fresh.resolve(target)
    # Not a timing assertion on a shared machine: a generous bound that only a per-link rescan would break.
    assert time.perf_counter() - started < 10


def test_every_link_of_every_page_resolves_to_its_recorded_lines(tmp_path, monkeypatch):
    """Resolved afresh (an empty symbol cache) with the installed torch: a finder that moves any
    linked symbol's lines fails here, naming the target, its recorded lines and its new ones."""
    release = installed_torch().release
    recorded = Recordings(REPO, release).anchors()
    if not recorded:  # every recorded release has them: `make goldens` writes them with its outputs
        pytest.fail(f"no source anchors are recorded for torch {release}: `make goldens TORCH={release}` records them")
    monkeypatch.setenv("HANDBOOK_CACHE_DIR", str(tmp_path))
    found = source_anchors(REPO)
    assert found.errors == []
    targets = sorted(recorded.keys() | found.anchors.keys())
    moved = {t: (recorded.get(t), found.anchors.get(t)) for t in targets if recorded.get(t) != found.anchors.get(t)}
    assert moved == {}, f"(recorded, resolved); a new or changed link is recorded by `make goldens TORCH={release}`"


def test_a_link_into_a_dunder_file_keeps_its_title_and_attributes(linker):
    """Inside an attribute list, `__init__` would be read as bold and the list shown as text."""
    import markdown

    rewritten = linker.rewrite("See [`torch.compile`](pytorch:torch/__init__.py#compile).\n", "p.md").markdown
    html = markdown.Markdown(extensions=["attr_list"]).convert(rewritten)
    assert "<strong>" not in html and "{:" not in html
    assert 'class="pytorch-source"' in html and 'title="PyTorch v' in html and "torch/__init__.py lines" in html


def test_a_link_shows_its_file_and_lines_without_a_tag_badge(linker):
    import markdown

    rewritten = linker.rewrite("See [`torch.compile`](pytorch:torch/__init__.py#compile).\n", "p.md").markdown
    html = markdown.Markdown(extensions=["attr_list"]).convert(rewritten)
    compile_ = linker.resolve("torch/__init__.py#compile")
    # The browser shows `&#95;` as `_`: Markdown did not read `__init__` as bold.
    assert f'<span class="pytorch-where">__init__.py:{compile_.first}-{compile_.last}</span>' in html.replace(
        "&#95;", "_"
    )
    assert "data-tag" not in html and "<strong>" not in html
    path_only = linker.rewrite("[the engine](pytorch:torch/csrc/autograd/engine.cpp)\n", "p.md").markdown
    assert path_only.endswith('<span class="pytorch-where">engine.cpp</span>\n')


def test_the_file_and_lines_follow_the_whole_word_a_link_is_part_of(linker):
    rewritten = linker.rewrite("Two [`Edge`](pytorch:torch/csrc/autograd/edge.h#Edge)s, then.\n", "p.md").markdown
    assert rewritten.startswith("Two [`Edge`](https://github.com/pytorch/pytorch/blob/")
    assert '{: .pytorch-source }s<span class="pytorch-where">edge.h:' in rewritten and rewritten.endswith(
        "</span>, then.\n"
    )


def test_in_chinese_a_links_title_and_an_excerpts_caption_are_chinese():
    linker = SourceLinker(SourceTree(REPO), "zh")
    bump = linker.resolve("c10/core/TensorImpl.h#VariableVersion::bump")
    tag = linker.tree.identity.tag
    page = (
        '## 一\n\n--8<-- "pytorch:c10/core/TensorImpl.h#VariableVersion::bump"\n\n'
        "[引擎](pytorch:torch/csrc/autograd/engine.cpp)\n"
    )
    rewritten = linker.rewrite(page, "p.md").markdown
    assert f'title="c10/core/TensorImpl.h，第 {bump.first}-{bump.last} 行（PyTorch {tag}）"' in rewritten
    assert f'[在 GitHub 上查看 VariableVersion::bump]({bump.url} "PyTorch {tag}：c10/core/TensorImpl.h 第 ' in rewritten
    assert f' "PyTorch {tag}：torch/csrc/autograd/engine.cpp"){{: .pytorch-source }}' in rewritten


def test_no_page_links_the_documentation_of_whatever_release_is_newest():
    """`docs/stable` always means the newest release, not the edition's: `pytorch-docs:` links it."""
    found = [
        f"{path.relative_to(REPO)}:{number}"
        for directory in ("docs", "docs-zh")
        for path in sorted((REPO / directory).rglob("*.md"))
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if re.search(r"pytorch\.org/docs/stable", line)
    ]
    assert found == []
