"""PTX607 at a kernel's first wgmma: the PTX ISA requires a wgmma.fence before the first
wgmma.mma_async of a warpgroup. Reported where no path from the kernel's entry may fence
before it; silent where one may, or where ptxlint cannot tell."""

from __future__ import annotations

import pytest

from tests.conftest import lint_text

HELPERS = r"""
#include <cstdint>
__device__ __forceinline__ void fence() { asm volatile("wgmma.fence.sync.aligned;" ::: "memory"); }
__device__ __forceinline__ void commit() { asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory"); }
__device__ __forceinline__ void wait0() { asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory"); }
__device__ __forceinline__ void mma(float (&d)[4], uint64_t a, uint64_t b) {
  asm volatile("wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 {%0,%1,%2,%3}, %4, %5, 1, 1, 1, 0, 0;"
               : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]) : "l"(a), "l"(b));
}
__device__ void prologue(int n);  // defined in another file
"""


def _kernel(body: str, head: str = "__global__ void") -> str:
    return HELPERS + f"""
{head} k(float* out, uint64_t a, uint64_t b, int n) {{
  float d[4];
{body}
  out[threadIdx.x] = d[0];
}}
"""


def _findings(body: str, head: str = "__global__ void") -> list[str]:
    return [f.message for f in lint_text(_kernel(body, head), select=("PTX607",))]


def test_a_kernel_that_never_fences_is_reported_once_at_its_first_wgmma() -> None:
    found = lint_text(_kernel("  mma(d, a, b);\n  mma(d, a + 2, b + 2);\n  commit();\n  wait0();"),
                      select=("PTX607",))
    assert len(found) == 1
    assert "is the first wgmma kernel `k` issues, and no wgmma.fence comes before it" in \
        found[0].message
    text = _kernel("  mma(d, a, b);")
    assert text[found[0].span.start:].startswith("mma(d, a, b)")  # the helper call


@pytest.mark.parametrize("later", ["fence();", "prologue(i);"])
def test_a_fence_at_the_end_of_each_turn_leaves_the_first_turn_unfenced(later: str) -> None:
    # a fence (or a call that may hold one) later in the turn is only the next turn's
    found = _findings("  for (int i = 0; i < n; ++i) {\n    mma(d, a, b);\n    commit();\n"
                      f"    wait0();\n    {later}\n  }}")
    assert len(found) == 1
    assert "in the first turn of the loop around it" in found[0]


def test_the_reason_about_a_write_wins_over_the_missing_first_fence() -> None:
    # one wgmma, one finding: the register write the fence must order is named
    found = _findings("  d[0] = 0.f;\n  mma(d, a, b);")
    assert len(found) == 1
    assert "uses `d`, written at line" in found[0]


@pytest.mark.parametrize(("body", "head"), [
    ("  fence();\n  mma(d, a, b);", "__global__ void"),  # fenced
    ("  mma(d, a, b);", "__device__ void"),  # no kernel: its callers may fence
    ("  if (n > 1) fence();\n  mma(d, a, b);", "__global__ void"),  # a path fences
    ("  prologue(n);\n  mma(d, a, b);", "__global__ void"),  # a call that may fence
    # the first turn issues no wgmma; every later one is fenced by the turn before
    ("  for (int i = 0; i < n; ++i) {\n    if (i > 0) mma(d, a, b);\n    fence();\n  }",
     "__global__ void"),
    ("  for (int i = 0; i < n; ++i) {\n    if (i == 0) continue;\n    mma(d, a, b);\n"
     "    fence();\n  }", "__global__ void"),
    ("  for (int i = 0; i < n; ++i) {\n    i > 0 && (mma(d, a, b), true);\n    fence();\n  }",
     "__global__ void"),
    # an inner loop that may not turn on the outer loop's first turn
    ("  for (int i = 0; i < n; ++i) {\n    for (int j = 1; j < i; ++j) mma(d, a, b);\n"
     "    fence();\n  }", "__global__ void"),
    # a lambda's body runs where it is called
    ("  auto issue = [&] { mma(d, a, b); };\n  fence();\n  issue();", "__global__ void"),
])
def test_silent_where_a_fence_may_come_first(body: str, head: str) -> None:
    assert _findings(body, head) == []


def test_a_helper_that_may_fence_before_its_wgmma_is_silent() -> None:
    text = HELPERS + r"""
__device__ void step(float (&d)[4], uint64_t a, uint64_t b, int n) {
  for (int i = 0; i < n; ++i) {
    if (i > 0) mma(d, a, b);
    fence();
  }
}
__global__ void k(float* out, uint64_t a, uint64_t b, int n) {
  float d[4];
  step(d, a, b, n);
  out[threadIdx.x] = d[0];
}
"""
    assert lint_text(text, select=("PTX607",)) == []


def test_the_device_memset_takes_no_fence() -> None:
    # memset (the device runtime's, the project defines none) is ordinary stores
    found = _findings("  memset(d, 0, sizeof(d));\n  mma(d, a, b);")
    assert len(found) == 1
    assert "is the first wgmma kernel `k` issues" in found[0]


def test_a_directive_condition_holds_no_call() -> None:
    # `and (B)` in an #if condition is the preprocessor's expression, not a call of `and`
    found = _findings("#if (defined(__CUDA_ARCH__) and (__CUDA_ARCH__ >= 900)) or defined(X)\n"
                      "  mma(d, a, b);\n#endif")
    assert len(found) == 1


@pytest.mark.parametrize("fence", [
    'asm volatile(FENCE_TEXT ::: "memory");',  # a macro's text ptxlint does not know
    'asm volatile("wgmma." FENCE_SUFFIX ";" ::: "memory");',
])
def test_an_asm_statement_ptxlint_cannot_read_may_be_the_fence(fence: str) -> None:
    text = HELPERS + f"""
#include "fence_text.h"
__device__ void my_fence() {{ {fence} }}
__global__ void k(float* out, uint64_t a, uint64_t b) {{
  float d[4];
  my_fence();
  mma(d, a, b);
  out[threadIdx.x] = d[0];
}}
"""
    assert lint_text(text, select=("PTX607",)) == []
    # in the kernel's own body too
    own = text.replace("  my_fence();\n", f"  {fence}\n")
    assert lint_text(own, select=("PTX607",)) == []


def test_a_constructor_that_fences_is_run_by_a_declaration() -> None:
    text = HELPERS + r"""
struct Arrive { __device__ Arrive() { fence(); } };
__global__ void k(float* out, uint64_t a, uint64_t b) {
  float d[4];
  Arrive guard;
  mma(d, a, b);
  out[threadIdx.x] = d[0];
}
"""
    assert lint_text(text, select=("PTX607",)) == []


def test_only_a_declaration_runs_a_constructor_and_only_before_the_wgmma() -> None:
    kernel = HELPERS + r"""
struct Arrive { __device__ Arrive() { fence(); } };
__global__ void k(float* out, uint64_t a, uint64_t b) {
  float d[4];
  mma(d, a, b);
  DECLARE
  out[threadIdx.x] = d[0];
}
"""
    # a class whose constructor fences, no object of it before the wgmma: no fence runs
    assert len(lint_text(kernel.replace("DECLARE", ""), select=("PTX607",))) == 1
    assert len(lint_text(kernel.replace("DECLARE", "Arrive late;"), select=("PTX607",))) == 1


def test_an_asm_statement_ptxlint_cannot_read_after_the_first_wgmma_is_not_its_fence() -> None:
    text = HELPERS + r"""
#include "fence_text.h"
__global__ void k(float* out, uint64_t a, uint64_t b) {
  float d[4];
  mma(d, a, b);
  asm volatile(FENCE_TEXT ::: "memory");
  out[threadIdx.x] = d[0];
}
"""
    assert len(lint_text(text, select=("PTX607",))) == 1
