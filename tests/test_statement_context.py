"""The function around a statement: the innermost definition, through lambdas, whatever lies
above it."""

from __future__ import annotations

from ptxlint.engine import extract_statements
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
