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
instruction's operands are. CuTe's ``elect_one_sync()`` (``arch/cluster_sm90.hpp``: an
``elect.sync``) takes no step; it is restated so that a call of it is read, not opaque: it
guards the TMA store of DeepGEMM's epilogues, and the rules stayed silent across it.
:mod:`.function_flow` reads them as one more included header, consulted last: a definition
in the file or in one of its project headers always wins, so a project that defines its own
``cp_async_wait`` is read as it wrote it.

CUTLASS's barrier classes, CuTe's TMA store classes and its Tensor Memory allocators are
restated as classes (``cutlass::arch::ClusterBarrier``, ``ClusterTransactionBarrier``,
``NamedBarrier``, ``cute::SM90_TMA_STORE_2D``..., ``cute::TMEM::Allocator1Sm`` and
``Allocator2Sm`` of ``arch/tmem_allocator_sm100.hpp``, whose ``allocate``, ``free`` and
``release_allocation_lock`` DeepGEMM's SM100 kernels call, through a ``conditional_t`` of the
two; each method the instruction its definition issues, an inherited one restated in the
derived class): a call reaches such a method only where its
class is the summary's, read off the call (:mod:`.call_classes`: ``full_barriers[s]->wait(p)``
with ``Barrier* full_barriers[N]`` and ``using Barrier = cutlass::arch::ClusterTransactionBarrier``,
``NamedBarrier::sync(n, id)``), never by the method's name alone (``x.wait()``, ``obj.arrive()``
of another class stay opaque). An instance method's barrier is the object itself (``this``),
which no operand of the caller names: its steps are there for what they are not (a barrier
wait is no wgmma wait), and a rule that needs the barrier stays silent.

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
template <int Count>
__device__ void tma_store_wait() {
  asm volatile("cp.async.bulk.wait_group.read %0;" :: "n"(Count) : "memory");
}
__device__ void tma_store_arrive() { asm volatile("cp.async.bulk.commit_group;"); }
// CuTe arch/cluster_sm90.hpp: one lane elected, no protocol step
__device__ uint32_t elect_one_sync() {
  uint32_t pred = 0;
  uint32_t laneid = 0;
  asm volatile("{\n.reg .b32 %%rx;\n.reg .pred %%px;\n     elect.sync %%rx|%%px, %2;\n"
               "@%%px mov.s32 %1, 1;\n     mov.s32 %0, %%rx;\n}\n"
               : "+r"(laneid), "+r"(pred) : "r"(0xFFFFFFFF));
  return pred;
}
// CUTLASS arch/barrier.h: NamedBarrier, ClusterBarrier, ClusterTransactionBarrier
struct NamedBarrier {
  __device__ void arrive_and_wait() const { asm volatile("bar.sync %0, %1;" :: "r"(id_), "r"(n_)); }
  __device__ void sync() const { asm volatile("bar.sync %0, %1;" :: "r"(id_), "r"(n_)); }
  __device__ void arrive() const { asm volatile("bar.arrive %0, %1;" :: "r"(id_), "r"(n_)); }
  __device__ static void arrive_and_wait(uint32_t num_threads, uint32_t barrier_id) {
    asm volatile("bar.sync %0, %1;" :: "r"(barrier_id), "r"(num_threads));
  }
  __device__ static void sync(uint32_t num_threads, uint32_t barrier_id) {
    asm volatile("bar.sync %0, %1;" :: "r"(barrier_id), "r"(num_threads));
  }
  __device__ static void arrive(uint32_t num_threads, uint32_t barrier_id) {
    asm volatile("bar.arrive %0, %1;" :: "r"(barrier_id), "r"(num_threads));
  }
};
"""

# ClusterBarrier's methods, restated in ClusterTransactionBarrier, which inherits them; an
# instance method's barrier is ``this``
_WAIT = r"""{.reg .pred p; mbarrier.try_wait.parity.shared::cta.b64 p, [%0], %1;}"""
_CLUSTER_BARRIER = rf"""
  __device__ void init(uint32_t arrive_count) const {{
    asm volatile("mbarrier.init.shared::cta.b64 [%1], %0;" :: "r"(arrive_count), "r"(this));
  }}
  __device__ bool test_wait(uint32_t phase, uint32_t pred = true) const {{
    asm volatile("{{.reg .pred p; mbarrier.test_wait.parity.shared::cta.b64 p, [%0], %1;}}"
                 :: "r"(this), "r"(phase) : "memory");
  }}
  __device__ bool try_wait(uint32_t phase) const {{
    asm volatile("{_WAIT}" :: "r"(this), "r"(phase) : "memory");
  }}
  __device__ void wait(uint32_t phase) const {{
    asm volatile("{_WAIT}" :: "r"(this), "r"(phase) : "memory");
  }}
  __device__ void arrive() const {{
    asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" :: "r"(this) : "memory");
  }}
  __device__ void arrive(uint32_t cta_id, uint32_t pred = true) const {{
    asm volatile("{{.reg .b32 a; mapa.shared::cluster.u32 a, %0, %1;"
                 "mbarrier.arrive.shared::cluster.b64 _, [a];}}"
                 :: "r"(this), "r"(cta_id) : "memory");
  }}
  __device__ static void init(uint64_t const* smem_ptr, uint32_t arrive_count) {{
    asm volatile("mbarrier.init.shared::cta.b64 [%1], %0;" :: "r"(arrive_count), "r"(smem_ptr));
  }}
  __device__ static void wait(uint64_t const* smem_ptr, uint32_t phase) {{
    asm volatile("{_WAIT}" :: "r"(smem_ptr), "r"(phase) : "memory");
  }}
  __device__ static void arrive(uint64_t const* smem_ptr) {{
    asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" :: "r"(smem_ptr) : "memory");
  }}
"""
_TRANSACTIONS = r"""
  __device__ void arrive_and_expect_tx(uint32_t bytes) const {
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%1], %0;"
                 :: "r"(bytes), "r"(this) : "memory");
  }
  __device__ void expect_transaction(uint32_t bytes) const {
    asm volatile("mbarrier.expect_tx.shared::cta.b64 [%1], %0;" :: "r"(bytes), "r"(this)
                 : "memory");
  }
  __device__ static void arrive_and_expect_tx(uint64_t const* smem_ptr, uint32_t bytes) {
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%1], %0;"
                 :: "r"(bytes), "r"(smem_ptr) : "memory");
  }
  __device__ static void expect_transaction(uint64_t const* smem_ptr, uint32_t bytes) {
    asm volatile("mbarrier.expect_tx.shared::cta.b64 [%1], %0;" :: "r"(bytes), "r"(smem_ptr)
                 : "memory");
  }
"""


def _tma_store(kind: str, opcode: str, reduction: str, n: int) -> str:
    """CuTe's ``SM90_TMA_<kind>_<n>D`` (arch/copy_sm90_tma.hpp): a TMA store (or reduction)
    of ``n`` coordinates, reading the shared memory at ``smem_ptr``."""
    coordinates = ", ".join(f"int32_t const& crd{k}" for k in range(n))
    places = ", ".join(f"%{k + 2}" for k in range(n))
    bound = ", ".join(f'"r"(crd{k})' for k in range(n))
    return (f"struct SM90_TMA_{kind}_{n}D {{\n"
            f"  __device__ static void copy(void const* desc_ptr, void const* smem_ptr, "
            f"{coordinates}) {{\n"
            f'    asm volatile("{opcode}.{n}d.global.shared::cta{reduction}.bulk_group '
            f'[%0, {{{places}}}], [%1];" :: "l"(desc_ptr), "r"(smem_ptr), {bound} : "memory");'
            "\n  }\n};\n")


def _tmem_allocator(group: int) -> str:
    """CuTe's ``cute::TMEM::Allocator<group>Sm`` (arch/tmem_allocator_sm100.hpp): Tensor
    Memory allocation of ``.cta_group::<group>``, the address written to ``dst_ptr``."""
    return (f"struct Allocator{group}Sm {{\n"
            "  __device__ void allocate(int num_columns, uint32_t* dst_ptr) {\n"
            f'    asm volatile("tcgen05.alloc.cta_group::{group}.sync.aligned.shared::cta.b32 '
            '[%0], %1;" :: "r"(dst_ptr), "r"(num_columns));\n  }\n'
            "  __device__ void free(uint32_t tmem_ptr, int num_columns) {\n"
            f'    asm volatile("tcgen05.dealloc.cta_group::{group}.sync.aligned.b32 %0, %1;" '
            ':: "r"(tmem_ptr), "r"(num_columns));\n  }\n'
            "  __device__ void release_allocation_lock() {\n"
            f'    asm volatile("tcgen05.relinquish_alloc_permit.cta_group::{group}.sync.aligned;"'
            " ::);\n  }\n};\n")


SUMMARIES += "".join([
    f"struct ClusterBarrier {{{_CLUSTER_BARRIER}}};\n",
    f"struct ClusterTransactionBarrier {{{_CLUSTER_BARRIER}{_TRANSACTIONS}}};\n",
    *(_tma_store(kind, opcode, reduction, n) for kind, opcode, reduction in (
        ("STORE", "cp.async.bulk.tensor", ""),
        ("REDUCE_ADD", "cp.reduce.async.bulk.tensor", ".add")) for n in range(1, 6)),
    _tmem_allocator(1), _tmem_allocator(2)])


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
