"""PTX605 where the generic write's address is the TMA store's own plus a run-time index
(``p + i`` is ``&p[i]``): the write is one of the buffer the store reads. A constant added on
the way, or a name ptxlint cannot see the value of, may move it to another region of the raw
buffer: no finding then."""

from __future__ import annotations

import pytest

from tests.conftest import lint_text

# a raw buffer reached through integer addresses, a stage chosen at run time (flashinfer's
# generated kernels): the stmatrix/st.shared address is the store's plus the lane's offset
RAW = r"""
#include <cstdint>
#define OFFSET 4096
__global__ void k(const void* desc, uint32_t v, int stage) {
  extern __shared__ __align__(128) char smem_raw[];
  const int smem = (int)__cvta_generic_to_shared(smem_raw);
  const int out_addr = smem + 8192;
  int lane = threadIdx.x % 32;
  int stage_addr = out_addr + stage * 2048;
  asm volatile("st.shared.u32 [%0], %1;" :: "r"(WRITE), "r"(v) : "memory");
  FENCE
  __syncthreads();
  if (threadIdx.x == 0)
    asm volatile("cp.async.bulk.tensor.1d.global.shared::cta.bulk_group [%0, {%1}], [%2];"
                 :: "l"(desc), "r"(0), "r"(out_addr + stage * 2048) : "memory");
}
"""

FENCE = 'asm volatile("fence.proxy.async.shared::cta;" ::: "memory");'


def _raw(write: str, fence: str = "") -> str:
    return RAW.replace("WRITE", write).replace("FENCE", fence)


def test_a_write_at_the_stored_address_plus_the_lane_offset_is_reported() -> None:
    findings = lint_text(_raw("stage_addr + lane * 4"), select=("PTX605",))
    assert [f.rule for f in findings] == ["PTX605"]
    assert "`st.shared.u32` at line 10" in findings[0].message


def test_the_proxy_fence_between_them_silences_it() -> None:
    assert lint_text(_raw("stage_addr + lane * 4", FENCE), select=("PTX605",)) == []


@pytest.mark.parametrize("write", [
    "stage_addr + 4096",  # a constant: maybe another region of the raw buffer
    "stage_addr + OFFSET + lane * 4",  # a macro's value is not read: maybe a constant
    "stage_addr + (lane + 64) * 4",  # a constant inside the index moves it as well
    "out_addr + lane * 4",  # the stage's offset is not the store's: maybe another stage
])
def test_a_write_that_may_lie_in_another_region_is_not_the_store_s(write: str) -> None:
    assert lint_text(_raw(write), select=("PTX605",)) == []


# DeepGEMM's epilogue: a pointer into the tile moved by lane and warp indices, written through a
# project helper, and the TMA store (CuTe's, whose headers the tree lacks) under
# cute::elect_one_sync(), which takes no protocol step
POINTER = r"""
#include <cute/arch/copy_sm90_tma.hpp>
#include <cstdint>
__device__ __forceinline__ void st_shared(const void* ptr, uint32_t x) {
  asm volatile("st.shared.u32 [%0], %1;" :: "l"(__cvta_generic_to_shared(ptr)), "r"(x));
}
__device__ uint32_t get_lane_idx();
template <uint32_t kSwizzle>
__global__ void k(const CUtensorMap* desc, uint32_t v) {
  extern __shared__ __align__(1024) uint8_t smem_buffer[];
  auto smem_cd = reinterpret_cast<float*>(smem_buffer);
  const auto lane_idx = get_lane_idx();
  const uint32_t row = lane_idx / 4;
  auto smem_ptr = reinterpret_cast<uint8_t*>(smem_cd) + row * kSwizzle + lane_idx % 2 * 8;
  st_shared(smem_ptr, v);
  FENCE
  __syncthreads();
  if (threadIdx.x < 32 and cute::elect_one_sync())
    cute::SM90_TMA_STORE_2D::copy(desc, smem_cd, 0, 0);
}
"""


def test_a_helper_write_through_a_moved_pointer_is_one_of_the_stored_tile() -> None:
    findings = lint_text(POINTER.replace("FENCE", ""), select=("PTX605",))
    assert [f.rule for f in findings] == ["PTX605"]
    assert lint_text(POINTER.replace("FENCE", "cute::tma_store_fence();"),
                     select=("PTX605",)) == []
