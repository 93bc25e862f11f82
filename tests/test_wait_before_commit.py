"""A wait_group placed before the commit_group of the asynchronous operation it should cover.

``cp.async.wait_group`` and ``wgmma.wait_group`` wait only for committed groups (PTX ISA
``cp.async.wait_group``: "all the prior cp.async-groups committed by the executing threads are
complete"; ``wgmma.wait_group``: a wait "that waits on a wgmma-group including that
wgmma.mma_async instruction"). A copy or an mma_async not yet committed at the wait is not
waited for: its data read after the wait is a race, whatever N. One defect, one finding: with
no commit before the read either, PTX602 reports the cp.async wait; with a commit after the
wait, PTX603 reports the read; PTX606 reports the wgmma accumulators' read in both cases.
"""

from __future__ import annotations

import pytest

from tests.conftest import lint_text

CP = r"""
__device__ __forceinline__ void commit() { asm volatile("cp.async.commit_group;" ::: "memory"); }
__device__ void external();
__global__ void k(const float* src, float* out, int n) {
  __shared__ float tile[128];
  unsigned dst = (unsigned)__cvta_generic_to_shared(&tile[threadIdx.x]);
  asm volatile("cp.async.ca.shared.global [%0], [%1], 4;" :: "r"(dst), "l"(src + threadIdx.x));
BODY
  out[threadIdx.x] = tile[threadIdx.x];
}
"""
WAIT = '  asm volatile("cp.async.wait_group 0;" ::: "memory");\n'
COMMIT = '  asm volatile("cp.async.commit_group;" ::: "memory");\n'


def _cp(body: str) -> tuple[str, list[tuple[str, int]]]:
    text = CP.replace("BODY\n", body)
    found = lint_text(text, "k.cu", select=("PTX602", "PTX603"))
    return text, [(f.rule, f.span.start) for f in found]


def test_a_read_after_a_wait_before_the_copys_commit_is_reported_once() -> None:
    text, found = _cp(WAIT + COMMIT)
    assert found == [("PTX603", text.index("tile[threadIdx.x];"))]
    message = lint_text(text, "k.cu", select=("PTX603",))[0].message
    assert "comes before the copy's cp.async.commit_group" in message
    # a commit through a followed helper after the wait counts the same
    text, found = _cp(WAIT + "  commit();\n")
    assert found == [("PTX603", text.index("tile[threadIdx.x];"))]


def test_a_wait_with_no_commit_before_the_read_stays_ptx602s() -> None:
    text, found = _cp(WAIT)
    assert found == [("PTX602", text.index("cp.async.wait_group"))]


@pytest.mark.parametrize("body", [
    COMMIT + WAIT,  # the ordinary order
    "  commit();\n" + WAIT,  # the commit in a followed helper
    "  external();\n" + WAIT + COMMIT,  # a call ptxlint cannot read may commit
    WAIT + COMMIT + WAIT,  # a second wait after the commit covers the copy
    "  asm volatile(\"cp.async.wait_all;\" ::: \"memory\");\n" + COMMIT,  # commits first
    # a wait in a loop with a commit later in its body: a later turn waits for this copy
    "  for (int i = 0; i < n; ++i) {\n" + WAIT + COMMIT + "  }\n",
])
def test_a_wait_that_may_cover_the_copy_is_not_reported(body: str) -> None:
    assert _cp(body)[1] == []


WG = r"""
#include <cstdint>
__device__ __forceinline__ void commit_batch() { asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory"); }
__device__ void external();
__global__ void k(float* out, uint64_t a, uint64_t b, int n) {
  float d[4] = {0, 0, 0, 0};
BODY
}
"""
FENCE = '  asm volatile("wgmma.fence.sync.aligned;" ::: "memory");\n'
MMA = ('  asm volatile("wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 {%0,%1,%2,%3}, %4, %5,'
       ' 1, 1, 1, 0, 0;" : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]) : "l"(a), "l"(b));\n')
WG_WAIT = '  asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");\n'
WG_COMMIT = '  asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");\n'
READ = "  out[threadIdx.x] = d[0];\n"


def _wg(body: str) -> tuple[str, list[int]]:
    text = WG.replace("BODY\n", body)
    return text, [f.span.start for f in lint_text(text, "k.cu", select=("PTX606",))]


@pytest.mark.parametrize("between", [WG_WAIT + WG_COMMIT, WG_WAIT + "  commit_batch();\n", WG_WAIT])
def test_an_accumulator_read_after_a_wait_before_the_mmas_commit_is_reported(
        between: str) -> None:
    text, found = _wg(FENCE + MMA + between + READ)
    assert found == [text.index("d[0];\n")]


@pytest.mark.parametrize("body", [
    FENCE + MMA + WG_COMMIT + WG_WAIT + READ,
    FENCE + MMA + "  commit_batch();\n" + WG_WAIT + READ,  # a commit of a followed helper
    FENCE + MMA + "  external();\n" + WG_WAIT + READ,  # a call that may commit
    FENCE + MMA + WG_WAIT + WG_COMMIT + WG_WAIT + READ,
    # the wait at the top of the turn covers the previous turn's mma, committed at its end
    "  for (int i = 0; i < n; ++i) {\n" + WG_WAIT + READ + FENCE + MMA + WG_COMMIT + "  }\n"
    + WG_WAIT + READ,
])
def test_a_wgmma_wait_that_may_cover_the_mma_is_not_reported(body: str) -> None:
    assert _wg(body)[1] == []
