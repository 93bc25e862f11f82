"""Two stages of one shared buffer (``&s[0][i]`` and ``&s[1][i]``, constant first indices) hold
different data: a read of one stage is not served by the copy into the other, so a
``cp.async.wait_group 1`` that completes the first stage's group and leaves the second's
pending makes a read of the second stage a race (PTX603), and a read of the first none."""

from __future__ import annotations

import pytest

from tests.conftest import lint_text

KERNEL = r"""
__global__ void k(const float* a, float* out) {
  __shared__ float s[2][128];
  unsigned a0 = __cvta_generic_to_shared(&s[0][threadIdx.x]);
  unsigned a1 = __cvta_generic_to_shared(&s[1][threadIdx.x]);
  asm volatile("cp.async.ca.shared.global [%0], [%1], 4;" :: "r"(a0), "l"(a + threadIdx.x));
  asm volatile("cp.async.commit_group;" ::: "memory");
  asm volatile("cp.async.ca.shared.global [%0], [%1], 4;" :: "r"(a1), "l"(a + 128));
  asm volatile("cp.async.commit_group;" ::: "memory");
  asm volatile("cp.async.wait_group WAITED;" ::: "memory");
  __syncthreads();
  out[threadIdx.x] = s[STAGE][threadIdx.x];
}
"""


def _found(waited: int, stage: int) -> list[int]:
    text = KERNEL.replace("WAITED", str(waited)).replace("STAGE", str(stage))
    return [f.span.start for f in lint_text(text, "k.cu", select=("PTX603",))]


def test_the_stage_whose_group_stays_pending_is_read_too_early() -> None:
    assert len(_found(1, 1)) == 1


@pytest.mark.parametrize(("waited", "stage"), [(1, 0), (0, 1), (0, 0)])
def test_a_completed_stage_is_read_safely(waited: int, stage: int) -> None:
    assert _found(waited, stage) == []
