"""The protocol steps of well-known library functions whose definitions a linted tree lacks.

A kernel takes many of its asynchronous-protocol steps through functions it does not define:
the CUDA toolkit's pipeline primitives (``__pipeline_memcpy_async``, ``__pipeline_commit``,
``__pipeline_wait_prior``: the CUDA C++ Programming Guide, "Pipeline Primitives Interface"),
and CUTLASS's and CuTe's wrappers (``cp_async_fence()``, ``cp_async_wait<N>()``,
``warpgroup_arrive()``, ``warpgroup_wait<N>()``, ``tma_store_fence()``, ``fence_barrier_init()``)
in projects that vendor CUTLASS as a submodule a checkout leaves empty. The toolkit's own
headers are not read (their definitions dispatch through ``ImplementationChooser`` overloads the
flows cannot pick between), and a missing header cannot be; either way such a call was opaque,
and the PTX6xx rules stayed silent around it.

:data:`SUMMARIES` restates each function as a one-instruction ``asm`` body, the instruction its
real definition issues (copied from the toolkit's ``cuda_pipeline_helpers.h``, CUTLASS's
``arch/memory_sm80.h`` and ``arch/barrier.h``, CuTe's ``arch/copy_sm80.hpp``,
``arch/mma_sm90_gmma.hpp`` and ``arch/copy_sm90_tma.hpp``), with its parameters where the
instruction's operands are. :mod:`.function_flow` reads them as one more included header,
consulted last: a definition in the file or in one of its project headers always wins, so a
project that defines its own ``cp_async_wait`` is read as it wrote it.

Where the real definition picks its instruction by a template argument (CUTLASS's and CuTe's
``cp_async_wait<0>()`` is ``cp.async.wait_all``, which commits first; any other count is
``cp.async.wait_group N``), the summary keeps both in the arms of an ``if``, and the rules treat
a step in a helper's ``if`` arm as of unknown order (:meth:`.FunctionFlow.once`): silent rather
than wrong about which one runs.

Parsed once per process (:func:`library_header`); computed only when a protocol rule asks for
the flows (the rules are preview).
"""

from __future__ import annotations

import functools

from ptxlint.analysis.included_helpers import Header
from ptxlint.model import SourceFile
from ptxlint.ptx import parser as ptx_parser

__all__ = ["PATH", "SUMMARIES", "library_header"]

PATH = "<library protocol summaries>"

SUMMARIES = r"""
// CUDA toolkit, cuda_pipeline_primitives.h (cuda_pipeline_helpers.h issues these)
__device__ void __pipeline_memcpy_async(void* dst_shared, const void* src_global,
                                        size_t size_and_align, size_t zfill) {
  asm volatile("cp.async.ca.shared.global [%0], [%1], %2;"
               :: "r"(dst_shared), "l"(src_global), "n"(size_and_align) : "memory");
}
__device__ void __pipeline_commit() { asm volatile("cp.async.commit_group;" ::: "memory"); }
__device__ void __pipeline_wait_prior(size_t prior) {  // min(prior, 8): 8 stages at most
  asm volatile("cp.async.wait_group %0;" :: "n"(prior - (prior > 8) * (prior - 8)) : "memory");
}
__device__ void __pipeline_arrive_on(__mbstate_t* barrier) {
  asm volatile("cp.async.mbarrier.arrive.shared.b64 [%0];" :: "r"(barrier) : "memory");
}
// CUTLASS arch/memory_sm80.h and CuTe arch/copy_sm80.hpp (cutlass::arch::, cute::)
__device__ void cp_async_fence() { asm volatile("cp.async.commit_group;\n" ::); }
template <int N>
__device__ void cp_async_wait() {
  if (N == 0) {
    asm volatile("cp.async.wait_all;\n" ::);
  } else {
    asm volatile("cp.async.wait_group %0;\n" :: "n"(N));
  }
}
// CuTe arch/mma_sm90_gmma.hpp
__device__ void warpgroup_arrive() { asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory"); }
__device__ void warpgroup_commit_batch() {
  asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
}
template <int N>
__device__ void warpgroup_wait() {
  asm volatile("wgmma.wait_group.sync.aligned %0;\n" :: "n"(N) : "memory");
}
// CuTe arch/copy_sm90_tma.hpp, CUTLASS arch/barrier.h
__device__ void tma_store_fence() { asm volatile("fence.proxy.async.shared::cta;"); }
__device__ void fence_view_async_shared() { asm volatile("fence.proxy.async.shared::cta;\n" ::); }
__device__ void fence_barrier_init() { asm volatile("fence.mbarrier_init.release.cluster;\n" ::); }
"""


@functools.lru_cache(maxsize=1)
def library_header() -> Header | None:
    """The summaries, extracted as a header (once per process)."""
    # here, not at the top: rule modules import this one, and a run that takes every result
    # from the cache loads no extraction code
    from ptxlint.frontends.cxx.extract import extract

    result = extract(SourceFile(PATH, SUMMARIES), ptx_parser.parse_template)
    if result.parsed is None or not result.statements:
        return None
    return Header(PATH, result.parsed, tuple(result.statements))
