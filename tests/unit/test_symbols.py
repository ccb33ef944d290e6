"""Symbols resolve to the lines that define them: Python by its syntax tree, C++ headers past
comments, literals and preprocessor branches; answers are cached per torch commit."""

import json
import textwrap
from pathlib import Path

import pytest

from handbook.environment import installed_torch
from handbook.sources import symbols
from handbook.sources.links import SourceLinker, source_anchors
from handbook.sources.symbols import CppHeader, PythonSymbols, Span, SymbolCache
from handbook.sources.tree import SourceError, SourceTree

REPO = Path(__file__).resolve().parents[2]


def source(text: str) -> list[str]:
    return textwrap.dedent(text).strip("\n").splitlines()


def lines_of(spans: list[Span]) -> list[tuple[int, int]]:
    return [(span.first, span.last) for span in spans]


# --- Python ------------------------------------------------------------------


def test_a_span_starts_at_the_first_decorator_past_comments_and_multi_line_arguments():
    lines = source("""
        class Mode:
            @count
            # a comment between the decorator and the def
            def dispatch(self):
                return 1

        @deprecated(
            "gone soon",
            category=FutureWarning,
        )
        def check(i):
            return i
    """)
    assert lines_of(PythonSymbols(lines).find("Mode.dispatch")) == [(2, 5)]
    assert lines_of(PythonSymbols(lines).find("check")) == [(7, 12)]


def test_a_column_zero_line_inside_a_string_does_not_end_the_function():
    lines = source('''
        def declaration(name):
            marker = '"""'
            return f"""\\
        struct {name} {{
        }};
        """


        def after():
            pass
    ''')
    assert lines_of(PythonSymbols(lines).find("declaration")) == [(1, 6)]


def test_dotted_names_reach_methods_nested_functions_and_definitions_under_if_and_try():
    lines = source("""
        class Outer:
            class Inner:
                def method(self):
                    def helper():
                        pass
            if True:
                def conditional(self):
                    pass

        try:
            async def fetch():
                pass
        except ImportError:
            pass
    """)
    found = PythonSymbols(lines)
    assert lines_of(found.find("Outer.Inner.method")) == [(3, 5)]
    assert lines_of(found.find("Outer.Inner.method.helper")) == [(4, 5)]
    assert lines_of(found.find("Outer.conditional")) == [(7, 8)]
    assert [span.kind for span in found.find("fetch")] == ["def"]
    assert found.find("method") == []


def test_overload_stubs_are_not_definitions():
    lines = source("""
        @overload
        def size(dim: int) -> int: ...
        @typing.overload
        # a comment under the decorator
        def size() -> tuple: ...
        def size(dim=None):
            return dim
    """)
    assert lines_of(PythonSymbols(lines).find("size")) == [(6, 7)]


def test_module_level_assignments_plain_annotated_and_multi_line():
    lines = source('''
        LIMIT = 3
        registry: list[
            tuple[int, str]
        ] = []
        MESSAGE = """
        text at column zero
        """
        declared_only: int

        def f():
            local = 1

        class C:
            attribute = 2
    ''')
    found = PythonSymbols(lines)
    assert lines_of(found.find("LIMIT")) == [(1, 1)]
    assert lines_of(found.find("registry")) == [(2, 4)]
    assert lines_of(found.find("MESSAGE")) == [(5, 7)]
    assert found.find("declared_only") == [] and found.find("local") == [] and found.find("attribute") == []


def test_a_file_that_does_not_parse_says_so():
    with pytest.raises(SourceError, match="cannot parse the installed file as Python: line 1"):
        PythonSymbols(["def broken(:"]).find("broken")


@pytest.fixture(scope="module")
def tree():
    return SourceTree(REPO)


def test_fake_tensor_dispatch_starts_at_its_decorator_above_a_comment(tree):
    """The line scan started this span at the def, below `@count` and a comment."""
    lines = tree.file("torch/_subclasses/fake_tensor.py").lines()
    [span] = PythonSymbols(lines).find("FakeTensorMode.__torch_dispatch__")
    assert lines[span.first - 1].strip() == "@count"
    assert lines[span.first].strip().startswith("#")
    assert lines[span.first + 1].strip() == "def __torch_dispatch__("


def test_meta_declaration_ends_with_its_template_string(tree):
    """The line scan ended this function at the first column-0 line of its f-string."""
    lines = tree.file("torchgen/gen.py").lines()
    [span] = PythonSymbols(lines).find("compute_meta_function_declaration")
    body = lines[span.first - 1 : span.last]
    assert any(line.startswith("struct TORCH_API structured_") for line in body)
    assert body[-1] == '"""'
    assert not any(line.strip() for line in lines[span.last : span.last + 2])
    assert lines[span.last + 2].startswith("def ")


# --- C++ ---------------------------------------------------------------------


def test_digit_separators_are_not_character_literals():
    lines = source("""
        inline int clamp(int n) {
          if (n > 1'000) {
            return 1'000;
          }
          return n;
        }
        inline int after() { return 0; }
    """)
    assert lines_of(CppHeader(lines).find("clamp")) == [(1, 6)]


def test_raw_strings_hide_braces_quotes_and_comment_markers():
    lines = source("""
        inline const char* usage() {
          return R"doc(
            { "shape": [2, 3] } } "unbalanced
            see http://example.org // not a comment )" still inside
          )doc";
        }
        struct After {};
    """)
    header = CppHeader(lines)
    assert lines_of(header.find("usage")) == [(1, 6)]
    assert lines_of(header.find("After")) == [(7, 7)]


def test_a_brace_opened_in_both_branches_of_a_conditional_is_opened_once():
    lines = source("""
        #ifdef C10_MOBILE
        struct Engine : public MobileBase {
        #else
        struct Engine : public ServerBase {
        #endif
          void run();
          int calls = 0;
        };

        #if defined(FAST)
        inline int dispatch(int value) {
          return fast(value);
        #elif defined(MEDIUM)
        inline int dispatch(int value, int hint) {
          return medium(value, hint);
        #else
        inline int dispatch(int value, int hint, int fallback) {
          return slow(value, hint, fallback);
        #endif
        }
        struct After {};
    """)
    header = CppHeader(lines)
    assert lines_of(header.find("Engine")) == [(2, 8), (4, 8)]
    assert lines_of(header.find("Engine::calls")) == [(7, 7)]
    assert lines_of(header.find("dispatch")) == [(11, 20), (14, 20), (17, 20)]
    assert lines_of(header.find("After")) == [(21, 21)]


def test_comments_hide_declarations_and_do_not_hide_constructors():
    lines = source("""
        /*
        struct Example {
          int f(int x);
        };
        */
        struct Options {
          Options() {}
          /* implicit */ Options(int layout) : Options() {
            set(layout);
          }
        };
    """)
    header = CppHeader(lines)
    assert header.find("Example") == [] and header.find("f") == []
    assert lines_of(header.find("Options::Options")) == [(7, 7), (8, 10)]


def test_namespace_scope_constexpr_constants():
    lines = source("""
        namespace c10 {
        namespace detail {
        constexpr size_t kSmallSize = 1048576;
        inline constexpr std::array<int, 3> kShape = {
            1, 2, 3};
        } // namespace detail
        extern "C" {
        static constexpr const char* kName = "{";
        }
        struct Config {
          static constexpr size_t kMember = 2;
        };
        inline size_t twice() {
          constexpr size_t kLocal = 2;
          return kLocal * 2;
        }
        } // namespace c10
    """)
    header = CppHeader(lines)
    assert [(s.first, s.last, s.kind) for s in header.find("kSmallSize")] == [(3, 3, "constant")]
    assert lines_of(header.find("kShape")) == [(4, 5)]
    assert lines_of(header.find("kName")) == [(8, 8)]
    assert header.find("kMember") == [] and header.find("kLocal") == []
    assert [(s.first, s.kind) for s in header.find("Config::kMember")] == [(11, "field")]


def test_types_functions_macros_and_members():
    lines = source("""
        #define CHECK(cond, ...) \\
          do { if (!(cond)) fail(__VA_ARGS__); } while (0)
        enum class Kind : uint8_t { A, B };
        class C10_API Tensor final : public Base {
         public:
          int64_t dim() const;
          struct Impl {
            int x;
          };
         private:
          int64_t dim_ = 0;
        };
        inline int64_t Tensor::dim() const {
          return dim_;
        }
        void free_function(int a);
    """)
    header = CppHeader(lines)
    assert [(s.first, s.last, s.kind) for s in header.find("CHECK")] == [(1, 2, "macro")]
    assert lines_of(header.find("Kind")) == [(3, 3)]
    assert lines_of(header.find("Tensor")) == [(4, 12)]
    assert [(s.first, s.last, s.kind) for s in header.find("Tensor::dim")] == [(13, 15, "definition")]
    assert [(s.first, s.kind) for s in header.find("Tensor::Impl")] == [(7, "type")]
    assert [(s.first, s.kind) for s in header.find("Tensor::dim_")] == [(11, "field")]
    assert [(s.first, s.kind) for s in header.find("free_function")] == [(16, "declaration")]


def test_a_constant_of_an_installed_header_links_to_its_line(tree):
    resolved = SourceLinker(tree).resolve("c10/core/AllocatorConfig.h#kSmallSize")
    source = tree.file(resolved.path)
    assert resolved.first == resolved.last
    assert source.lines()[resolved.first - 1 + source.line_offset].startswith("constexpr size_t kSmallSize =")


# --- The answers cache -------------------------------------------------------

PYTHON = ["def f():", "    return 1", "", "def g():", "    pass"]


def parsing_fails(monkeypatch):
    def refuse(path, lines):
        raise AssertionError(f"{path} was parsed: the cache did not answer")

    monkeypatch.setattr(symbols, "finder_for", refuse)


def test_answers_are_stored_under_the_torch_commit_and_reused_without_parsing(tmp_path, monkeypatch):
    assert lines_of(symbols.find("m.py", PYTHON, "g", tmp_path)) == [(4, 5)]
    [entry] = (tmp_path / "symbols" / installed_torch().git_version).glob("*.json")
    assert json.loads(entry.read_text())["answers"] == {"g": [[4, 5, "def"]]}
    parsing_fails(monkeypatch)
    assert lines_of(SymbolCache(entry.parent).find("m.py", PYTHON, "g")) == [(4, 5)]


def test_an_entry_never_answers_for_other_text(tmp_path):
    SymbolCache(tmp_path).find("m.py", PYTHON, "g")
    edited = ["# a new first line"] + PYTHON
    assert lines_of(SymbolCache(tmp_path).find("m.py", edited, "g")) == [(5, 6)]
    assert len(list(tmp_path.glob("*.json"))) == 2


def test_a_corrupt_entry_is_ignored_and_rewritten(tmp_path):
    SymbolCache(tmp_path).find("m.py", PYTHON, "g")
    [entry] = tmp_path.glob("*.json")
    entry.write_text('{"answers": {"g": [[4')
    assert lines_of(SymbolCache(tmp_path).find("m.py", PYTHON, "g")) == [(4, 5)]
    assert json.loads(entry.read_text())["answers"]["g"] == [[4, 5, "def"]]
    assert [p.name for p in tmp_path.iterdir()] == [entry.name]  # no partial file left behind


def test_a_cache_that_cannot_be_written_only_costs_time(tmp_path):
    blocked = tmp_path / "a-file-where-the-cache-directory-should-be"
    blocked.write_text("")
    assert lines_of(SymbolCache(blocked / "symbols").find("m.py", PYTHON, "g")) == [(4, 5)]


def test_the_symbol_cache_lies_in_the_repositorys_cache_root_wherever_the_build_is_run_from(tmp_path, monkeypatch):
    """`python -m handbook --root X ...` run from elsewhere: the answers go under X's cache, beside its runs."""
    monkeypatch.delenv("HANDBOOK_CACHE_DIR", raising=False)
    monkeypatch.chdir(tmp_path)
    symbols._cache_in.cache_clear()
    source_anchors(REPO)  # its own links, resolved with REPO as the repository root
    assert not (tmp_path / ".cache").exists()
    assert (REPO / ".cache" / "handbook" / "symbols").is_dir()


def test_a_warm_cache_resolves_every_link_of_the_site_without_parsing(tmp_path, monkeypatch):
    monkeypatch.setenv("HANDBOOK_CACHE_DIR", str(tmp_path))
    cold = source_anchors(REPO)
    symbols._cache_in.cache_clear()  # a new build process: nothing in memory
    parsing_fails(monkeypatch)
    warm = source_anchors(REPO)
    assert warm.errors == cold.errors == []
    assert warm.anchors == cold.anchors
