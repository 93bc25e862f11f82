"""A file's directive lines, read once (``lexer.DirectiveLines``, held by ``FileGuards``) by
every scanner that asks where its ``#error`` lines are or whether an offset lies in a
directive: a `#` inside a multi-line block comment (phase 3 makes it one space before phase
4 recognises directives) or inside a multi-line raw string literal (a literal's body, never a
line of its own) starts no directive, and a backslash-newline joins lines first (phase 2)."""

from __future__ import annotations

from ptxlint.analysis.include_guard import include_guard
from ptxlint.engine import extract_statements
from ptxlint.frontends.cxx.defines import collect
from ptxlint.frontends.cxx.guards import FileGuards, guards_of
from ptxlint.frontends.cxx.host_code import file_errors_for_cuda
from ptxlint.frontends.cxx.lexer import DirectiveLines, block_comments
from ptxlint.model import SourceFile
from ptxlint.ptx.targets import excluded_by_errors
from tests.test_block_comment_directives import assert_hidden_as_lexed

ASM = 'asm volatile("membar.gl;");'
ERROR = '#error "built for another host"\n'
# an #error under a real #if: only the #error line is hidden
HOST_ONLY = "#if !defined(__sparc__)\n"
BELOW_SM90 = "#if __CUDA_ARCH__ < 900\n"
ARCH_ERROR = f"{BELOW_SM90}{ERROR}#endif\n"
# each hides the directive lines it holds; each comes with the same lines shown
HIDERS = {
    "block comment": ("/* disabled:\n", "*/\n"),
    "raw string": ('const char* usage = R"doc(\n', ')doc";\n'),
    "prefixed raw string": ('auto usage = u8R"(\n', ')";\n'),
}


def _hidden_and_shown(lines: str, before: str = "", after: str = "") -> list[tuple[str, str, str]]:
    return [
        (name, f"{before}{a}{lines}{b}{after}", f"{before}{a}{b}{lines}{after}")
        for name, (a, b) in HIDERS.items()
    ]


def _errors(text: str) -> list[str]:
    return [text[at : text.index("\n", at)] for at in DirectiveLines(text).named("error")]


def test_an_error_line_inside_a_comment_or_raw_string_is_none_and_one_after_it_is_read() -> None:
    for name, hidden, shown in _hidden_and_shown(ERROR):
        assert _errors(hidden) == [], name
        assert _errors(shown) == [ERROR.strip()], name


def test_a_comment_or_raw_string_opener_in_a_literal_or_line_comment_hides_nothing() -> None:
    for opener in ('const char* s = "/*";\n', '// R"(\n', 'const char* s = "R\\"(";\n',
                   "char c = '\"'; // /*\n", 'int FOOR = 1; auto t = FOOR"(";\n'):
        text = f"{opener}{ERROR}// )\" */\n"
        assert not block_comments(text, raw_strings=True), opener
        assert _errors(text) == [ERROR.strip()], opener


def test_a_directive_line_is_a_logical_line() -> None:
    # a `#` after code on a continued line starts nothing; after blank continued lines it does
    assert _errors("int a; \\\n#error x\n") == []
    assert _errors("  \\\n  #error x\n") == ["#error x"]
    assert _errors("  \\\r\n  #error x\n") == ["#error x"]
    text = "#define TWICE(x) x; \\\n    FENCE(x)\nint y = FENCE(1);\n"
    lines = DirectiveLines(text)
    assert lines.holding(text.index("TWICE")) == 0
    assert lines.holding(text.index("FENCE(x)")) == 0  # the define's continued body
    assert lines.holding(text.index("FENCE(1)")) == -1
    assert lines.holding(0) == -1  # the `#` itself: nothing of the directive precedes it


def test_the_spans_found_are_those_a_lexer_of_the_whole_text_finds() -> None:
    # openers after escapes, character literals, line comments and identifiers; raw strings
    # with and without a delimiter, on one line and over several; a raw string never closed
    lines = [
        '"a\\"/*" x\n', "c = '\"'; /*\n", 'R"(" /* )" y\n', 'u8R"x(/*)x" z\n', '"http://x" /*\n',
        'p = R"d(\n', '#error in raw\n', ')d" q;\n', "q */\n", 'LR"(a /*\n', 'b)" r;\n',
        "// c \\\n R\"(\n", "XR\"(a\n", "'R' /*\n", '"R" R"(\n', "x = 1; //* y\n", "/*\n",
        'R"never(\n',
    ]  # fmt: skip
    assert_hidden_as_lexed(lines, ("bcomment", "raw"), raw_strings=True)


def test_raw_strings_are_hidden_only_where_asked_for() -> None:
    # ``block_comments``' other callers (a header's #define scan, the prefilter) keep its
    # meaning: the comments alone
    text = 'const char* s = R"(\n#define X 1\n)";\n'
    assert not block_comments(text)
    assert block_comments(text, raw_strings=True).hides(text.index("#"))
    assert DirectiveLines(text).named("define") == ()


def test_a_file_error_inside_a_comment_or_raw_string_does_not_make_the_file_host_only() -> None:
    for name, hidden, shown in _hidden_and_shown(ERROR, HOST_ONLY, "#endif\n"):
        assert not file_errors_for_cuda(hidden, FileGuards(hidden)), name
        assert file_errors_for_cuda(shown, FileGuards(shown)), name


def test_an_arch_error_inside_a_comment_or_raw_string_excludes_no_target() -> None:
    for name, hidden, shown in _hidden_and_shown(ERROR, BELOW_SM90, "#endif\n"):
        assert excluded_by_errors(SourceFile("t.cuh", hidden)) == frozenset(), name
        assert excluded_by_errors(SourceFile("t.cuh", shown)), name


def test_the_error_lines_are_read_once_for_both_readers() -> None:
    text = f"{ARCH_ERROR}__device__ void f() {{ {ASM} }}\n"
    guards = guards_of(text)
    file_errors_for_cuda(text, guards)
    first = guards.directives.named("error")
    excluded_by_errors(SourceFile("t.cuh", text))
    assert guards.directives.named("error") is first


def test_an_include_guard_is_read_past_commented_and_raw_string_directives() -> None:
    opening = "#ifndef X_H\n#define X_H\n"
    body = "__device__ void f() {}\n"
    for name, (a, b) in HIDERS.items():
        fake = f"{a}#ifndef FAKE_H\n#define FAKE_H\n{b}" if name == "block comment" else ""
        # a commented-out or quoted #endif inside the guard closes nothing
        inside = f"{fake}{opening}{a}#endif\n{b}{body}#endif\n"
        assert include_guard(inside) == "X_H", name
    # a raw string after the guard's #endif is code outside it, whatever its lines spell
    after = f'{opening}{body}#endif\nconst char* s = R"(\n#define Y 1\n)";\n'
    assert include_guard(after) is None


def test_an_asm_macro_defined_inside_a_raw_string_makes_no_statement() -> None:
    hidden = f'const char* doc = R"(\n#define FENCE() {ASM}\n)";\n__device__ void f() {{ FENCE(); }}\n'
    assert "FENCE" not in collect("t.cu", hidden).defines
    assert extract_statements(SourceFile("t.cu", hidden)).statements == []


def test_a_macro_use_after_a_comment_whose_line_starts_with_a_hash_is_read() -> None:
    # the line reads `# */ FENCE();`: its `#` is inside the comment, so the use is code
    text = (
        f"#define FENCE() {ASM}\n__device__ void f() {{\n  /* step one:\n"
        "# */ FENCE();\n}\n"
    )
    use = text.index("FENCE();")
    assert any(s.span.start >= use for s in extract_statements(SourceFile("t.cu", text)).statements)


def test_function_spans_read_the_files_directive_lines() -> None:
    from ptxlint.frontends.cxx.function_spans import scan

    body = "  int a = 0;\n"
    for name, (a, b) in HIDERS.items():
        if name != "block comment":
            a, b = f"  {a}", f"  {b}"  # a raw string inside the body is code there
        text = f"__device__ void f() {{\n{a}#if X\n{b}{body}}}\n#define Y \\\r\n  {{\n"
        found = scan(text)
        assert found is not None, name
        assert found.directives is guards_of(text).directives.lines(), name  # one reading
        assert [word for _, _, word in found.directives] == ["define"], name
        assert found.in_directive(text.index("{\n", text.index("#define")))  # continued (CRLF)
        assert [s.name for s in found.functions] == ["f"] and found.functions[0].plain, name
