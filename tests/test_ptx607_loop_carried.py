"""PTX607 across a loop's turns: a write of the accumulators after the wgmma, in the loop
around it, reaches the next turn's wgmma; a wgmma.fence must lie on that way."""

from __future__ import annotations

import pytest

from tests.conftest import lint_text

# FENCE_OUTSIDE / FENCE_INSIDE / AFTER_WRITE vary per case.
LOOP = r"""
#include <cstdint>
__device__ void fence() { asm volatile("wgmma.fence.sync.aligned;" ::: "memory"); }
__device__ void consume(float* out, float v);  // defined in another file
__global__ void k(float* out, uint64_t a, uint64_t b, int steps) {
  float acc[4] = {0.f, 0.f, 0.f, 0.f};
  float total = 0.f;
  FENCE_OUTSIDE
  for (int s = 0; s < steps; ++s) {
    FENCE_INSIDE
    asm volatile("wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 {%0,%1,%2,%3}, %4, %5, 1, 1, 1, 0, 0;"
                 : "+f"(acc[0]), "+f"(acc[1]), "+f"(acc[2]), "+f"(acc[3]) : "l"(a), "l"(b));
    asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
    asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
    total += acc[0];
    acc[0] = 0.f;
    AFTER_WRITE
  }
  out[threadIdx.x] = total;
}
"""


def _loop(outside: str = "fence();", inside: str = "", after: str = "") -> str:
    return LOOP.replace("FENCE_OUTSIDE", outside).replace("FENCE_INSIDE", inside).replace(
        "AFTER_WRITE", after)


def test_a_write_the_next_turn_brings_to_the_wgmma_unfenced_is_reported() -> None:
    findings = lint_text(_loop(), select=("PTX607",))
    assert [f.rule for f in findings] == ["PTX607"]
    assert "`acc`, written at line" in findings[0].message
    assert "in the loop's previous turn" in findings[0].message


@pytest.mark.parametrize(("outside", "inside", "after"), [
    ("", "fence();", ""),  # fenced at the top of each turn
    ("fence();", "", "fence();"),  # fenced at the end of each turn
    ("fence();", "", "if (s == 3) break;"),  # the turn may be the last
    ("fence();", "", "consume(out, acc[1]);"),  # a call that may fence
])
def test_a_fence_or_an_unknown_on_the_way_round_keeps_the_rule_silent(
        outside: str, inside: str, after: str) -> None:
    assert lint_text(_loop(outside, inside, after), select=("PTX607",)) == []
