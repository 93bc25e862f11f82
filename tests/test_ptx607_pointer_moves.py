"""PTX607: moving a pointer the accumulators are elements behind (``acc = base + m * 4``)
writes none of the registers a wgmma reads; writing through it, or a value variable, does."""

from __future__ import annotations

import pytest

from tests.conftest import lint_text

# BEFORE is the code between the fence and the wgmma.
KERNEL = r"""
#include <cstdint>
__device__ void mma(uint64_t a, uint64_t b, float& d0, float& d1, float& d2, float& d3) {
  asm volatile("wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 {%0,%1,%2,%3}, %4, %5, 1, 1, 1, 0, 0;"
               : "+f"(d0), "+f"(d1), "+f"(d2), "+f"(d3) : "l"(a), "l"(b));
}
__device__ void run(float* acc, uint64_t a, uint64_t b, int groups) {
  float* base = acc;
  asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
  for (int m = 0; m < groups; ++m) {
    BEFORE
    mma(a, b, acc[0], acc[1], acc[2], acc[3]);
  }
  asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
  asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
}
"""


@pytest.mark.parametrize("before", [
    "acc = base + m * 4;",
    "acc = base;",
    "acc += 4;",
])
def test_moving_the_pointer_is_no_write_of_the_accumulators(before: str) -> None:
    assert lint_text(KERNEL.replace("BEFORE", before), select=("PTX607",)) == []


@pytest.mark.parametrize("before", [
    "acc[1] = 0.f;",
    "*acc *= 2.f;",
])
def test_writing_through_the_pointer_is_reported(before: str) -> None:
    findings = lint_text(KERNEL.replace("BEFORE", before), select=("PTX607",))
    assert [f.rule for f in findings] == ["PTX607"]
    assert "`acc`, written at line" in findings[0].message
