"""A `#` line inside a block comment is no directive: comments become one space in translation
phase 3, before directives are recognised in phase 4. Every directive scanner (the #if blocks,
the #define/#undef/#include table, the prefilter's include scan) skips such a line."""

from __future__ import annotations

from pathlib import Path

from ptxlint.engine import extract_statements
from ptxlint.frontends.cxx.defines import collect
from ptxlint.frontends.cxx.guards import FileGuards
from ptxlint.frontends.cxx.lexer import block_comments
from ptxlint.model import SourceFile
from ptxlint.run import prefilter

ASM = 'asm volatile("membar.gl;");'


def _guards_of_asm(text: str) -> tuple[str, ...]:
    at = text.index(ASM)
    return FileGuards(text).at(at, at + 1)[0]


def test_a_commented_out_if_0_block_does_not_guard_the_code_after_it() -> None:
    text = f"/* disabled:\n#if 0\n*/\n__device__ void f() {{ {ASM} }}\n/*\n#endif\n*/\n"
    assert _guards_of_asm(text) == ()
    # the one walk of a fresh file (``conditions_at``) reads the same
    at = text.index(ASM)
    assert FileGuards(text).conditions_at(at) == ()


def test_a_commented_out_endif_does_not_close_the_real_block() -> None:
    text = f"#if defined(A)\n/*\n#endif\n*/\n__device__ void f() {{ {ASM} }}\n#endif\n"
    assert _guards_of_asm(text) == ("defined(A)",)


def test_a_directive_after_the_comment_end_is_read() -> None:
    text = f"/* a\n   b */ int x;\n#if defined(B)\n__device__ void f() {{ {ASM} }}\n#endif\n"
    assert _guards_of_asm(text) == ("defined(B)",)
    # also on a text with continued lines (the joining reader)
    continued = "#define L 1 \\\n  + 2\n" + text.replace("/* a\n", "/* a\n#if 0\n")
    assert _guards_of_asm(continued) == ("defined(B)",)


def test_a_comment_opener_in_a_string_or_after_a_line_comment_opens_nothing() -> None:
    for opener in ('const char* s = "/*";\n', "// see /* below\n", "char c = '/'; int d = 1'0; // /*\n"):
        text = f"{opener}#if defined(C)\n__device__ void f() {{ {ASM} }}\n#endif\n// */\n"
        assert not block_comments(text), opener
        assert _guards_of_asm(text) == ("defined(C)",), opener


def test_a_line_comment_continued_onto_the_next_line_hides_its_comment_opener() -> None:
    text = "// a \\\n   b /*\n#define X 1\n"
    assert not block_comments(text)
    assert "X" in collect("t.h", text).defines


def test_a_commented_out_define_undef_and_include_are_not_read() -> None:
    text = (
        "/*\n#define HIDDEN 1\n#undef SHOWN\n#include \"hidden.h\"\n*/\n"
        "#define SHOWN 2\n/* one line */ #define NOT_AT_LINE_START 3\n#include \"shown.h\"\n"
    )
    found = collect("t.h", text)
    assert set(found.defines) == {"SHOWN"}
    assert found.undefs == {}
    assert found.includes == ["shown.h"]


def test_an_asm_macro_defined_inside_a_comment_makes_no_statement() -> None:
    hidden = f"/*\n#define FENCE() {ASM}\n*/\n__device__ void f() {{ FENCE(); }}\n"
    assert extract_statements(SourceFile("t.cu", hidden)).statements == []
    shown = hidden.replace("/*\n", "").replace("*/\n", "")
    use = shown.index("FENCE();")
    assert any(s.span.start >= use for s in extract_statements(SourceFile("t.cu", shown)).statements)


def test_the_prefilter_lets_no_file_through_for_a_commented_out_include(tmp_path: Path) -> None:
    (tmp_path / "fence.h").write_text(f"#define FENCE() {ASM}\n", encoding="utf-8")
    (tmp_path / "other.h").write_text("#define OTHER 1\n", encoding="utf-8")
    path = str(tmp_path / "k.cu")
    use = '#include "other.h"\nconst char* s = "/*";\n__device__ void f() { FENCE(); }\n'
    hidden = b'/* usage:\n#include "fence.h"\n*/\n' + use.encode()
    shown = b'/* usage: */\n#include "fence.h"\n' + use.encode()
    assert not prefilter.may_hold_asm(path, hidden)
    assert prefilter.may_hold_asm(path, shown)


def test_the_comments_found_from_each_opener_are_those_a_lexer_of_the_whole_text_finds() -> None:
    # lines where an even number of quotes before a `/*` does not mean whole string literals
    # (escapes, character literals, raw strings), a `//` inside a string, a comment ending on
    # the line where the next one opens, a continued line, a comment never closed
    lines = [
        '"a\\"/*" x\n', "c = '\"'; /*\n", 'R"(" /* )" y\n', 'u8R"x(/*)x" z\n', '"http://x" /*\n',
        "/* a */ s = \"*/\"; /*\n", "a = 1'0'0; /*\n", '"a" "b" /*\n', "p /*/ q\n", "q */\n",
        "#define M(x) x /* \\\n", "// c \\\n /*\n", "*/ #if 0\n", "'/*' /*\n", "/*\n",
    ]  # fmt: skip
    assert_hidden_as_lexed(lines, ("bcomment",), raw_strings=False)


def assert_hidden_as_lexed(lines: list[str], groups: tuple[str, ...], raw_strings: bool) -> None:
    """Over every rotation of ``lines``, ``block_comments`` hides exactly the multi-line
    tokens of ``groups`` that a lexer of the whole text finds."""
    from ptxlint.frontends.cxx.lexer import _TOKEN

    for i in range(len(lines)):
        text = "".join(lines[i:] + lines[:i])
        expected = [
            m.span()
            for m in _TOKEN().finditer(text)
            if m.lastgroup in groups and "\n" in m.group()
        ]
        found = block_comments(text, raw_strings=raw_strings)
        hidden = [at for at in range(len(text)) if found.hides(at)]
        assert hidden == [at for s, e in expected for at in range(s, e)], text
