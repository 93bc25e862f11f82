"""The function around a statement: the innermost definition, through lambdas, whatever lies
above it."""

from __future__ import annotations

import random

import pytest

from ptxlint.engine import extract_statements
from ptxlint.frontends.cxx import statement_context
from ptxlint.frontends.cxx.statement_context import follows_declarator
from ptxlint.model import SourceFile


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
