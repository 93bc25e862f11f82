"""Steps no call shows, in the protocol flows: an asm statement ptxlint cannot read (a hole in
its template, an instruction it cannot parse) may be any protocol step, and a declaration of
an object runs its class's constructor. Every protocol rule stays silent where one of them
may be the step it looks for, and only there."""

from __future__ import annotations

import pytest

from tests.conftest import lint_text

CP_ASYNC = r"""
#include "commit_text.h"
__device__ __forceinline__ void cp_async16(void* dst, const void* src) {
  unsigned s = (unsigned)__cvta_generic_to_shared(dst);
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" :: "r"(s), "l"(src) : "memory");
}
__device__ __forceinline__ void cp_async_wait0() { asm volatile("cp.async.wait_group 0;" ::: "memory"); }
__device__ __forceinline__ void commit() { asm volatile("cp.async.commit_group;" ::: "memory"); }
"""

# a macro's text ptxlint does not know; an instruction spelled partly by one
_UNREADABLE = ['asm volatile(COMMIT_TEXT ::: "memory");',
               'asm volatile("cp.async." COMMIT_SUFFIX ";" ::: "memory");']


def _copy_then_wait(between: str, after: str = "") -> str:
    return CP_ASYNC + f"""
struct Committer {{ __device__ Committer() {{ commit(); }} }};
__device__ void helper() {{ {between} }}
__global__ void k(const float4* g, float4* out) {{
  __shared__ float4 tile[128];
  cp_async16(&tile[threadIdx.x], &g[threadIdx.x]);
  {between}
  cp_async_wait0();
  __syncthreads();
  out[threadIdx.x] = tile[127 - threadIdx.x];
  {after}
}}
"""


def _ptx602(text: str) -> int:
    return len(lint_text(text, select=("PTX602",)))


def test_a_wait_with_no_commit_before_it_is_reported() -> None:
    assert _ptx602(_copy_then_wait("")) == 1


@pytest.mark.parametrize("asm", _UNREADABLE)
def test_an_asm_statement_ptxlint_cannot_read_may_be_the_commit(asm: str) -> None:
    assert _ptx602(_copy_then_wait(asm)) == 0
    # in a helper the kernel calls, too
    assert _ptx602(_copy_then_wait("helper();").replace(
        "__device__ void helper() { helper(); }", f"__device__ void helper() {{ {asm} }}")) == 0


@pytest.mark.parametrize("asm", _UNREADABLE)
def test_an_asm_statement_ptxlint_cannot_read_after_the_read_is_none_of_its_commits(
        asm: str) -> None:
    assert _ptx602(_copy_then_wait("", asm)) == 1


def test_a_declaration_runs_a_constructor_that_commits() -> None:
    assert _ptx602(_copy_then_wait("Committer c;")) == 0
    assert _ptx602(_copy_then_wait("Committer c{};")) == 0
    # a pointer declares no object: no constructor runs
    assert _ptx602(_copy_then_wait("Committer* c = nullptr; (void)c;")) == 1


MULTICAST = r"""
#include <cstdint>
__device__ __forceinline__ uint32_t smem(const void* p) { return (uint32_t)__cvta_generic_to_shared(p); }
__device__ __forceinline__ void bar_init(uint64_t* bar, int count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" :: "r"(smem(bar)), "r"(count));
}
__device__ __forceinline__ void fence_barrier_init() {
  asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
}
__device__ __forceinline__ void cluster_sync() {
  asm volatile("barrier.cluster.arrive.relaxed.aligned;" ::: "memory");
  asm volatile("barrier.cluster.wait.aligned;" ::: "memory");
}
__device__ __forceinline__ void expect_tx(uint64_t* bar, uint32_t bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" :: "r"(smem(bar)), "r"(bytes) : "memory");
}
__device__ __forceinline__ void bulk_load_multicast(void* dst, const void* src, uint32_t bytes, uint64_t* bar,
                                                    uint16_t cta_mask) {
  asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster"
               " [%0], [%1], %2, [%3], %4;"
               :: "r"(smem(dst)), "l"(src), "r"(bytes), "r"(smem(bar)), "h"(cta_mask) : "memory");
}
struct InitFence { __device__ InitFence() { fence_barrier_init(); } };
struct Other { int x; __device__ Other() : x(0) {} };
"""


def _init_then_multicast(between: str) -> str:
    return MULTICAST + f"""
__global__ void __cluster_dims__(2, 1, 1) k(const float* g, float* out) {{
  __shared__ alignas(128) float tile[1024];
  __shared__ uint64_t full;
  if (threadIdx.x == 0) bar_init(&full, 1);
  {between}
  cluster_sync();
  if (threadIdx.x == 0) {{
    expect_tx(&full, 4096);
    bulk_load_multicast(tile, g, 2048, &full, 0x3);
  }}
}}
"""


def test_a_constructor_that_fences_the_init_is_run_by_a_declaration() -> None:
    assert len(lint_text(_init_then_multicast(""), select=("PTX604",))) == 1
    assert lint_text(_init_then_multicast("InitFence f;"), select=("PTX604",)) == []
    # a constructor that takes no step is no fence
    assert len(lint_text(_init_then_multicast("Other o;"), select=("PTX604",))) == 1
