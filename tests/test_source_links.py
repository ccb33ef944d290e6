"""Links resolve to the lines that really define the symbol, in the installed files."""

from pathlib import Path

import pytest

from handbook.sources.links import SourceLinker, sections_without_links
from handbook.sources.tree import SourceError, SourceTree
from handbook.sources.symbols import find_python

REPO = Path(__file__).resolve().parent.parent


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
        ("torch/autograd/function.py#Function.apply", "def apply(cls"),
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
    window = "\n".join(installed[resolved.first - 1 + source.line_offset:resolved.first + 4 + source.line_offset])
    assert text in window, first_line
    assert resolved.last >= resolved.first
    assert resolved.url == f"https://github.com/pytorch/pytorch/blob/v2.13.0/{resolved.path}#L{resolved.first}-L{resolved.last}"


def test_header_lines_are_shifted_by_the_wrapper(linker):
    resolved = linker.resolve("c10/core/TensorImpl.h#VariableVersion")
    installed = linker.tree.file("c10/core/TensorImpl.h").installed.read_text().splitlines()
    assert installed[0].startswith("#if !defined(TORCH_STABLE_ONLY)")
    assert "struct C10_API VariableVersion" in installed[resolved.first]  # installed line first+1, 0-based first


def test_path_only_link_for_files_not_in_the_wheel(linker):
    resolved = linker.resolve("torch/csrc/autograd/engine.cpp")
    assert resolved.first is None and resolved.url.endswith("/v2.13.0/torch/csrc/autograd/engine.cpp")


def test_unknown_symbol(linker):
    with pytest.raises(SourceError, match="symbol 'NoSuch' not found in c10/core/TensorImpl.h"):
        linker.resolve("c10/core/TensorImpl.h#NoSuch")


def test_ambiguous_symbol_lists_candidates_and_how_to_choose(linker):
    with pytest.raises(SourceError, match=r"ambiguous.*pick one with @N:\n  @1: line \d+"):
        linker.resolve("c10/core/TensorImpl.h#TensorImpl::TensorImpl")
    assert linker.resolve("c10/core/TensorImpl.h#TensorImpl::TensorImpl@2").first


def test_a_symbol_cannot_be_asked_of_a_file_outside_the_wheel(linker):
    with pytest.raises(SourceError, match="not shipped in the wheel"):
        linker.resolve("torch/csrc/autograd/engine.cpp#Engine")


def test_rewrite_renders_links_and_excerpts_and_collects_errors(linker):
    page = "## One\n\nSee [x](pytorch:c10/core/TensorImpl.h#VariableVersion::bump).\n\n--8<-- \"pytorch:c10/core/TensorImpl.h#VariableVersion::bump\"\n\n```text\n[y](pytorch:not/rewritten.h)\n```\n\n[z](pytorch:nope.h)\n"
    result = linker.rewrite(page, "p.md")
    assert 'data-tag="v2.13.0"' in result.markdown
    assert "void bump()" in result.markdown  # the excerpt is the installed source
    assert "[y](pytorch:not/rewritten.h)" in result.markdown
    assert [c.section for c in result.citations] == ["One", "One"]
    assert result.errors == ["docs/p.md:11: pytorch:nope.h: nope.h does not exist in PyTorch v2.13.0: it is neither shipped in the wheel nor in the source index"]


def test_sections_without_links():
    page = "# T\n\nintro\n\n## Linked\n\n[a](pytorch:x.h)\n\n## Bare\n\ntext\n\n### Sub\n\n```text\n[a](pytorch:x.h)\n```\n"
    assert sections_without_links(page) == ["Bare"]


def test_resolving_many_links_is_fast(linker):
    import time

    targets = [
        "c10/core/TensorImpl.h#TensorImpl", "c10/core/StorageImpl.h#StorageImpl", "aten/src/ATen/native/native_functions.yaml#mul.Tensor",
        "tools/autograd/derivatives.yaml#add.Tensor", "torch/autograd/function.py#Function", "torch/csrc/autograd/engine.cpp",
    ]
    fresh = SourceLinker(SourceTree(REPO))
    started = time.perf_counter()
    for target in targets:
        fresh.resolve(target)
    # Not a timing assertion on a shared machine: a generous bound that only a per-link rescan would break.
    assert time.perf_counter() - started < 10


def test_python_line_scan_agrees_with_the_syntax_tree_on_every_linked_symbol(linker):
    """The fast line scan must find what `ast` finds, for each Python symbol the pages link."""
    import ast
    import re

    targets = set()
    for page in (REPO / "docs").glob("*.md"):
        targets |= {m for m in re.findall(r"pytorch:([^)\s\"']+\.py#[\w.]+)", page.read_text())}
    assert targets
    for target in sorted(targets):
        path, symbol = target.split("#")
        source = linker.tree.file(path)
        tree = ast.parse(source.installed.read_text())
        expected = []

        def visit(body, prefix):
            for node in body:
                if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                    name = prefix + node.name
                    overload = any(getattr(d, "id", getattr(d, "attr", "")).endswith("overload") for d in node.decorator_list)
                    if name == symbol and not overload:
                        expected.append((min([node.lineno] + [d.lineno for d in node.decorator_list]), node.end_lineno))
                    visit(node.body, name + ".")
                elif isinstance(node, (ast.If, ast.Try)):
                    visit(node.body, prefix)
                    visit(getattr(node, "orelse", []), prefix)
                elif isinstance(node, (ast.Assign, ast.AnnAssign)):
                    for t in node.targets if isinstance(node, ast.Assign) else [node.target]:
                        if isinstance(t, ast.Name) and prefix + t.id == symbol:
                            expected.append((node.lineno, node.end_lineno))

        visit(tree.body, "")
        found = [(s.first, s.last) for s in find_python(source.lines(), symbol)]
        assert found == expected, target


def test_a_link_into_a_dunder_file_keeps_its_title_and_attributes(linker):
    """Inside an attribute list, `__init__` would be read as bold and the list shown as text."""
    import markdown

    rewritten = linker.rewrite("See [`torch.compile`](pytorch:torch/__init__.py#compile).\n", "p.md").markdown
    html = markdown.Markdown(extensions=["attr_list"]).convert(rewritten)
    assert "<strong>" not in html and "{:" not in html
    assert 'class="pytorch-source"' in html and 'title="PyTorch v' in html and "torch/__init__.py lines" in html
