"""A function-like macro that expands to asm statements alone (``#define WAIT(n) asm
volatile("cp.async.wait_group %0;" :: "n"(n))``, a ``do { ... } while (0)`` around them) is
those statements where it is invoked: the protocol flows read their steps, and the invocation
is no call of a function ptxlint cannot read, which would silence the rules. An invocation
that expands to more (another call beside the asm) stays such a call."""

from __future__ import annotations

import pytest

from ptxlint.engine import extract_statements
from ptxlint.model import SourceFile
from tests.conftest import lint_text

KERNEL = r"""
DEFINE
__global__ void k(const float* a, float* out) {
  __shared__ float s0[128];
  __shared__ float s1[128];
  unsigned a0 = __cvta_generic_to_shared(&s0[threadIdx.x]);
  unsigned a1 = __cvta_generic_to_shared(&s1[threadIdx.x]);
  asm volatile("cp.async.ca.shared.global [%0], [%1], 4;" :: "r"(a0), "l"(a + threadIdx.x));
  asm volatile("cp.async.commit_group;" ::: "memory");
  asm volatile("cp.async.ca.shared.global [%0], [%1], 4;" :: "r"(a1), "l"(a + 128));
  asm volatile("cp.async.commit_group;" ::: "memory");
  WAIT(1);
  __syncthreads();
  out[threadIdx.x] = s1[threadIdx.x];
}
"""
ASM = 'asm volatile("cp.async.wait_group %0;" :: "n"(n) : "memory")'


def _kernel(define: str) -> str:
    return KERNEL.replace("DEFINE", define)


@pytest.mark.parametrize("define", [
    f"#define WAIT(n) {ASM}",
    f"#define WAIT(n) do {{ {ASM}; }} while (0)",
    f"#define WAIT(n) {{ {ASM}; }}",
])
def test_a_wait_written_through_an_asm_macro_is_read_as_its_statement(define: str) -> None:
    text = _kernel(define)
    found = lint_text(text, "k.cu", select=("PTX603",))
    # wait_group 1 leaves the second copy's group pending: its read is the race
    assert [f.span.start for f in found] == [text.index("s1[threadIdx.x];")]
    [wait] = [s for s in extract_statements(SourceFile("k.cu", text)).statements
              if "wait_group" in s.template.text and s.context.macro is None]
    assert wait.context.expansion is not None and wait.context.expansion.only_asm


def test_a_macro_that_also_calls_a_function_stays_a_call_that_may_wait() -> None:
    text = _kernel("__device__ void helper();\n"
                   f"#define WAIT(n) do {{ {ASM}; helper(); }} while (0)")
    assert lint_text(text, "k.cu", select=("PTX603",)) == []
    [wait] = [s for s in extract_statements(SourceFile("k.cu", text)).statements
              if "wait_group" in s.template.text and s.context.macro is None]
    assert wait.context.expansion is not None and not wait.context.expansion.only_asm
