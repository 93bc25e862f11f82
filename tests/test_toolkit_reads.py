"""A toolkit function that reads the memory a pointer argument points to (``wmma::
load_matrix_sync(frag, tile, ld)``, ``memcpy(dst, tile, n)``) reads a ``cp.async``'s
destination as ``tile[i]`` does: before the copy's group completes, a race (PTX603;
LeetCUDA 3acd5e23's wmma kernels). The warp matrix functions take no asynchronous step
themselves, so calling them does not silence the rule either."""

from __future__ import annotations

import pytest

from tests.conftest import lint_text

KERNEL = r"""
#include <mma.h>
using namespace nvcuda;
__global__ void k(const half* a, float* out, half* dst) {
  __shared__ half s0[256];
  __shared__ half s1[256];
  unsigned a0 = __cvta_generic_to_shared(&s0[threadIdx.x * 8]);
  unsigned a1 = __cvta_generic_to_shared(&s1[threadIdx.x * 8]);
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" :: "r"(a0), "l"(a + threadIdx.x * 8));
  asm volatile("cp.async.commit_group;" ::: "memory");
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" :: "r"(a1), "l"(a + 256));
  asm volatile("cp.async.commit_group;" ::: "memory");
  asm volatile("cp.async.wait_group WAITED;" ::: "memory");
  __syncthreads();
  wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> fa;
  READ;
  out[threadIdx.x] = (float)fa.x[0];
}
"""


def _found(waited: int, read: str) -> list[str]:
    text = KERNEL.replace("WAITED", str(waited)).replace("READ", read)
    return [f.message for f in lint_text(text, "k.cu", select=("PTX603",))]


@pytest.mark.parametrize("read", ["wmma::load_matrix_sync(fa, s1, 16)",
                                  "wmma::load_matrix_sync(fa, &s1[16], 16)",
                                  "nvcuda::wmma::load_matrix_sync(fa, s1 + 16, 16)",
                                  "memcpy(dst, s1, 16)"])
def test_a_toolkit_read_of_the_pending_stage_is_a_race(read: str) -> None:
    [message] = _found(1, read)
    assert "`s1`" in message and "wait_group 1" in message


@pytest.mark.parametrize(("waited", "read"), [
    (0, "wmma::load_matrix_sync(fa, s1, 16)"),  # every group complete
    (1, "wmma::load_matrix_sync(fa, s0, 16)"),  # the older group's buffer
    (1, "memcpy(s1, dst, 16)"),  # a write of it, not a read
    (1, "wmma::store_matrix_sync((float*)dst, fa, 16, wmma::mem_row_major)"),
])
def test_no_race_where_the_read_is_of_completed_data_or_none(waited: int, read: str) -> None:
    assert _found(waited, read) == []
