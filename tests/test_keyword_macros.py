"""An object-like macro that stands for the asm keyword (``#define ASM asm volatile``) begins a
statement wherever it is used: the template, operands and clobbers that follow are the file's
own text, so the statement is read and linted like one spelled with the keyword, with the
qualifiers the macro holds."""

from __future__ import annotations

import shutil
import subprocess

import pytest

from ptxlint.engine import extract_statements
from ptxlint.model import SourceFile
from tests.conftest import lint_text

SAME_FILE = """\
#define ASM asm volatile
__device__ unsigned f(unsigned a) {
  unsigned d;
  ASM("add.u32 %0, %1, %3;" : "=r"(d) : "r"(a));
  return d;
}
"""


def test_a_keyword_macro_use_is_read_as_a_statement() -> None:
    [statement] = extract_statements(SourceFile("k.cu", SAME_FILE)).statements
    assert SAME_FILE[statement.span.start : statement.span.start + 3] == "ASM"
    assert statement.keyword == "asm"  # what the macro stands for: a probe compiles it alone
    assert [q.name for q in statement.qualifiers] == ["volatile"]
    assert statement.template.text == "add.u32 %0, %1, %3;"
    assert [o.expression for o in statement.operands] == ["d", "a"]


def test_its_defects_are_found_at_their_own_characters() -> None:
    [finding] = lint_text(SAME_FILE, "k.cu", select=("PTX001",))
    line = SAME_FILE.splitlines()[finding.span_line - 1] if hasattr(finding, "span_line") else ""
    assert finding.rule == "PTX001"
    assert SAME_FILE[finding.span.start : finding.span.end] == "%3"
    del line


def test_the_macro_s_volatile_counts() -> None:
    text = (
        "#define ASM asm volatile\n"
        "__device__ unsigned f(unsigned* a) {\n"
        "  unsigned d;\n"
        '  ASM("atom.global.add.u32 %0, [%1], 1;" : "=r"(d) : "l"(a));\n'
        "  return d;\n"
        "}\n"
    )
    assert [f.rule for f in lint_text(text, "k.cu", select=("PTX101",))] == []
    plain = text.replace("#define ASM asm volatile", "#define ASM asm")
    [finding] = lint_text(plain, "k.cu", select=("PTX101",))
    assert finding.fix is None  # "ASM volatile(" would be right, but the macro is not the keyword


def test_a_keyword_macro_from_an_included_header(tmp_path) -> None:
    (tmp_path / "ptx.h").write_text("#pragma once\n#define PTX_ASM __asm__ __volatile__\n")
    source = (
        '#include "ptx.h"\n'
        "__device__ void g(unsigned* p, unsigned v) {\n"
        '  PTX_ASM("st.shared.u32 [%0], %1;" :: "l"(p), "r"(v));\n'
        "}\n"
    )
    path = tmp_path / "k.cu"
    path.write_text(source)
    rules = {f.rule for f in lint_text(source, str(path))}
    assert "PTX301" in rules  # a generic pointer as a .shared address
    assert "PTX102" in rules  # a store with no "memory" clobber


def test_a_macro_renaming_the_keyword_does_not_read_a_statement_twice() -> None:
    text = (
        "#define asm __asm__\n"
        '__device__ void f() { asm volatile("bar.sync 0;" ::: "memory"); }\n'
    )
    assert len(extract_statements(SourceFile("k.cu", text)).statements) == 1


# sppark's field arithmetic (ff/mont_t.cuh) and its copies: the keyword itself is the macro
KEYWORD_ITSELF = """\
# ifdef __GNUC__
#  define asm __asm__ __volatile__
# else
#  define asm asm volatile
# endif
__device__ void add(unsigned* acc, const unsigned* a) {
  asm("add.cc.u32 %0, %0, %1;" : "+r"(acc[0]) : "r"(a[0]));
  asm("addc.cc.u32 %0, %0, %1;" : "+r"(acc[1]) : "r"(a[1]));
}
# undef asm
__device__ void add2(unsigned* acc, const unsigned* a) {
  asm("add.cc.u32 %0, %0, %1;" : "+r"(acc[0]) : "r"(a[0]));
  asm("addc.cc.u32 %0, %0, %1;" : "+r"(acc[1]) : "r"(a[1]));
}
"""


def test_a_macro_named_asm_gives_its_uses_its_qualifiers() -> None:
    # the preprocessor hands the compiler `__asm__ __volatile__("add.cc...")`: a volatile asm
    # under either definition; after `#undef asm`, a plain one again
    statements = extract_statements(SourceFile("k.cu", KEYWORD_ITSELF)).statements
    assert [s.is_volatile for s in statements] == [True, True, False, False]
    [first, *_] = statements
    [qualifier] = first.qualifiers
    assert qualifier.name == "__volatile__"
    assert KEYWORD_ITSELF[qualifier.span.start : qualifier.span.end] == "asm"


def test_a_macro_named_asm_moves_the_carry_chain_consumer_to_a_warning() -> None:
    # both statements volatile keep their order: PTX107 warns, as for `asm volatile`
    found = lint_text(KEYWORD_ITSELF, "k.cu", select=("PTX107",))
    errors = [f for f in found if f.severity.value == "error"]
    assert len(found) == 4
    assert [KEYWORD_ITSELF.count("\n", 0, f.span.start) + 1 for f in errors] == [13]


@pytest.mark.parametrize(
    "define",
    [
        "#ifdef X\n#define asm __asm__ __volatile__\n#else\n#define asm __asm__\n#endif",
    ],
)
def test_a_macro_named_asm_adds_only_what_every_definition_says(define: str) -> None:
    text = define + '\n__device__ void f() { asm("bar.sync 0;" ::: "memory"); }\n'
    statements = extract_statements(SourceFile("k.cu", text)).statements
    assert [s.is_volatile for s in statements] == [False]


@pytest.mark.parametrize(
    "define",
    [
        "#define ASM asm volatile(",  # the "(" belongs to the macro: not a keyword macro
        "#define ASM printf",
        '#define ASM "asm"',
    ],
)
def test_other_object_like_macros_begin_no_statement(define: str) -> None:
    text = f'{define}\n__device__ void f() {{ int x = 0; (void)x; }}\n// ASM("nop;");\n'
    assert extract_statements(SourceFile("k.cu", text)).statements == []


def test_a_use_in_a_comment_or_string_is_not_a_statement() -> None:
    text = (
        "#define ASM asm volatile\n"
        '__device__ const char* f() { /* ASM("nop;"); */ return "ASM(\\"nop;\\")"; }\n'
    )
    assert extract_statements(SourceFile("k.cu", text)).statements == []


@pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc is not on PATH")
def test_nvcc_reads_the_same_statement(tmp_path) -> None:
    """The toolchain's view: the same file with the defect fixed compiles, and with it ptxas
    names the same operand, so the statement read is the one nvcc compiles."""
    bad = tmp_path / "bad.cu"
    bad.write_text(SAME_FILE)
    good = tmp_path / "good.cu"
    good.write_text(SAME_FILE.replace("%3", "%1"))
    args = ["nvcc", "-arch=sm_90", "-c", "-o", "/dev/null"]
    assert subprocess.run([*args, str(good)], capture_output=True).returncode == 0
    failed = subprocess.run([*args, str(bad)], capture_output=True, text=True)
    assert failed.returncode != 0
    assert "%3" in failed.stderr or "operand" in failed.stderr.lower()


def test_the_language_server_s_reread_keeps_the_keyword_macro_s_qualifiers() -> None:
    # an edit inside the template re-reads one statement without the file's macros: the
    # qualifier the macro named `asm` gave it stays
    from ptxlint.engine import parse_template
    from ptxlint.frontends.cxx import extract as ex

    statements = extract_statements(SourceFile("k.cu", KEYWORD_ITSELF)).statements
    edited = KEYWORD_ITSELF.replace("add.cc.u32 %0", "add.cc.u32  %0", 1)
    again = ex.reread(SourceFile("k.cu", edited), statements[0], parse_template)
    assert again is not None and again.is_volatile
    assert again.template.text == "add.cc.u32  %0, %0, %1;"


def test_a_macro_named_asm_from_an_included_header(tmp_path) -> None:
    # the definition in force may come from a header the file includes (by relative path)
    (tmp_path / "v.h").write_text("#pragma once\n#define asm __asm__ __volatile__\n")
    body = KEYWORD_ITSELF.split("# undef asm\n")[0].split("# endif\n")[1]
    source = '#include "v.h"\n' + body
    path = tmp_path / "k.cu"
    path.write_text(source)
    statements = extract_statements(SourceFile(str(path), source)).statements
    assert [s.is_volatile for s in statements] == [True, True]


def test_a_macro_named_asm_qualifies_each_branch_of_a_statement_with_if_inside() -> None:
    text = (
        "#define asm __asm__ __volatile__\n"
        "__device__ unsigned f(unsigned a) {\n"
        "  unsigned d;\n"
        '  asm("add.cc.u32 %0, %1, 1;"\n'
        "#if __CUDA_ARCH__ >= 700\n"
        '      "addc.u32 %0, %0, 0;"\n'
        "#endif\n"
        '      : "=r"(d) : "r"(a));\n'
        "  return d;\n"
        "}\n"
    )
    statements = extract_statements(SourceFile("k.cu", text)).statements
    assert statements and all(s.is_volatile for s in statements)


IN_BODIES = """\
#define ASM asm __volatile__
#define ADD_CY(c) ASM("addc.s32 %0, 0, 0;" : "=r"(c))
#define TWO(a, b) { ASM("add.cc.u32 %0, %0, 1;" : "+r"(a)); \\
                    ASM("addc.u32 %0, %0, 0;" : "+r"(b)); }
#define NOTE "ASM(\\"mov.u32 %0, 1;\\")"
"""


def test_a_keyword_macro_begins_statements_in_other_macros_bodies() -> None:
    """gmp-ecm's carry macros: each body's ``ASM(...)`` is a statement of that macro, read
    with the qualifiers ``ASM`` stands for; one in a string of a body is none."""
    statements = extract_statements(SourceFile("k.cu", IN_BODIES)).statements
    assert [(s.context.macro, s.template.text) for s in statements] == [
        ("ADD_CY", "addc.s32 %0, 0, 0;"),
        ("TWO", "add.cc.u32 %0, %0, 1;"),
        ("TWO", "addc.u32 %0, %0, 0;"),
    ]
    assert all(s.keyword == "asm" and [q.name for q in s.qualifiers] == ["__volatile__"]
               for s in statements)
    assert all(IN_BODIES[s.span.start:s.span.start + 3] == "ASM" for s in statements)
    # the carry read across statements: a warning, as for a volatile asm spelt out
    assert {f.severity.value for f in lint_text(IN_BODIES, "k.cu", select=("PTX107",))} == \
        {"warning"}
