"""The function around a statement: the innermost definition, through lambdas, whatever lies
above it."""

from __future__ import annotations

import random

import pytest

from ptxlint.engine import extract_statements
from ptxlint.frontends.cxx import statement_context
from ptxlint.frontends.cxx.statement_context import follows_declarator
from ptxlint.model import SourceFile
from tests.conftest import lint_text


def test_the_innermost_function_names_the_statement_and_the_outer_ones_do_not() -> None:
    text = """
namespace outer {
__device__ void host_of_a_local_class() {
  struct Local {
    __device__ static void inner(unsigned *p) { asm volatile("st.u32 [%0], 1;" :: "l"(p)); }
  };
  asm volatile("trap;");
}
}
"""
    found = {s.template.text: s.context.function for s in extract_statements(
        SourceFile("k.cu", text)).statements}
    assert found == {"st.u32 [%0], 1;": "inner", "trap;": "host_of_a_local_class"}


def test_a_lambda_inside_a_host_function_is_not_host_only() -> None:
    # a __device__ lambda may run on the GPU: the host function around it decides nothing
    text = """
void launch() {
  auto body = [] __device__ (unsigned *p) { asm volatile("st.u32 [%0], 1;" :: "l"(p)); };
}
void plain_host(unsigned *p) { asm volatile("st.u32 [%0], 1;" :: "l"(p)); }
"""
    result = extract_statements(SourceFile("k.cu", text))
    assert [s.context.function for s in result.statements] == ["launch"]
    assert [reason for _, reason in result.skipped] == [
        "host: in a host-only function (no __device__/__global__, no device caller here)"
    ]


def _full_path_only(text: str, begin: int, offset: int, blanks: int) -> tuple[None, None]:
    return None, None


def test_the_declarator_check_reads_from_a_line_as_from_the_window(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """``follows_declarator`` reads the tokens before a keyword from the nearest line start
    that holds one where no token can run past it (``_last_on_line``, stepping back over
    directive and comment lines), else from 2,000 characters before: the answer is the
    same either way."""
    pieces = [
        "int f(void)", "x = g(1);", "{", "}", "#if A", "#if defined(B) && C", "#endif",
        "#else", "// c", "// c )", "/* c */", "/* a\nb */", "", "  ", "return", ")", "]",
        "a[2]", '"s"', 'R"(r\n)"', "\\", "#define X \\\n  1", "'c'", "__THROW", "else",
        "clock_t clock(void)", "volatile", "if (x)", "int a, b", "// tail \\",
    ]
    rng = random.Random(11)
    texts = []
    for _ in range(4000):
        lines = [rng.choice(pieces) for _ in range(rng.randrange(0, 7))]
        texts.append("\n".join([*lines, 'asm("nop;");']))
    fast = [follows_declarator(t, t.rindex("asm")) for t in texts]
    monkeypatch.setattr(statement_context, "_last_on_line", _full_path_only)
    slow = [follows_declarator(t, t.rindex("asm")) for t in texts]
    assert fast == slow
    assert 200 < sum(fast) < 3800  # both answers come up


def test_words_in_a_function_headers_comments_are_not_its_specifiers() -> None:
    # a comment between the specifiers is no part of the declaration
    text = """
__device__ __forceinline__ void f(unsigned *p /* as __restrict__ */, int __n,
  /* __noinline__ */ int __m) // __global__ callers only
{
  asm volatile("st.u32 [%0], 1;" :: "l"(p));
}
"""
    (statement,) = extract_statements(SourceFile("k.cu", text)).statements
    assert statement.context.function == "f"
    specifiers = ("__device__", "__forceinline__", "__n", "__m")
    assert statement.context.function_specifiers == specifiers


def test_a_host_function_whose_comments_name_device_is_host_only() -> None:
    # the context and the host-code verdict read one header: a word in a comment counts for
    # neither
    text = """
void on_host(unsigned *p) // no __device__ here: __global__ kernels call the other one
{
  asm volatile("st.u32 [%0], 1;" :: "l"(p));
}
/* not a __device__ function either */ void also_on_host(unsigned *p) {
  asm volatile("st.u32 [%0], 2;" :: "l"(p));
}
"""
    result = extract_statements(SourceFile("k.cu", text))
    assert result.statements == []
    assert [reason for _, reason in result.skipped] == 2 * [
        "host: in a host-only function (no __device__/__global__, no device caller here)"
    ]


# `.reg` outside braces: PTX201 in a function, silence at file scope (where no function is
# named). Each function declares its name inside a declarator of its result.
_REG = r'asm volatile(".reg .b32 t;\n\tmov.u32 t, 1;\n\tmov.u32 %0, t;" : "=r"(*p));'


@pytest.mark.parametrize("header", [
    "__device__ int& f(int *p)",
    "__device__ int&& f(int *p)",
    "__device__ void (*f(int *p))(float)",
    "__device__ int (&f(int *p))[4]",
])
def test_a_function_named_inside_its_results_declarator_is_the_statements_function(
    header: str,
) -> None:
    text = f"{header} {{ {_REG} return 0; }}\n"
    (statement,) = extract_statements(SourceFile("k.cu", text)).statements
    assert statement.context.function == "f"
    # not file-scope asm: its unscoped declaration lands in f's scope
    assert [f.rule for f in lint_text(text, path="k.cu", select=("PTX201",))] == ["PTX201"]


_STORE = 'asm volatile("st.u32 [%0], 1;" :: "l"(p));'
_HOST_ONLY = "host: in a host-only function (no __device__/__global__, no device caller here)"


@pytest.mark.parametrize("before", [
    # a ';' in a licence: its words are not the declaration's (each a macro it cannot see)
    "/* Copyright; THE SOFTWARE IS PROVIDED AS IS, WITHOUT WARRANTY\n   OF ANY KIND */\n",
    "/* \u00a9 Copyright; THE SOFTWARE IS PROVIDED \u2014 AS IS\n   OF ANY KIND */\n",
    # a ';' in a #define's body, on its line or a continued one: the directive's words
    "#define RUN(x) x; SYNC_ALL\n",
    "#define RUN(x) \\\n  x; SYNC_ALL\n",
    "int a;\n#define RUN(x) \\\n  SYNC_ALL\n",
])
def test_what_precedes_a_header_starts_after_the_files_code_not_in_a_comment_or_directive(
    before: str,
) -> None:
    result = extract_statements(SourceFile("k.cu", f"{before}void on_host(unsigned *p) {{ {_STORE} }}\n"))
    assert result.statements == []
    assert [reason for _, reason in result.skipped] == [_HOST_ONLY]


def test_a_device_macro_after_a_comment_holding_a_semicolon_still_says_device() -> None:
    text = f"#define DEV __device__\n/* note; see below */ DEV void f(unsigned *p) {{ {_STORE} }}\n"
    (statement,) = extract_statements(SourceFile("k.cu", text)).statements
    assert statement.context.function == "f"
    assert "__device__" in statement.context.function_specifiers
