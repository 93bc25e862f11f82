"""Proof from ptxas, on instantiations, for grammar errors reviewed as real defects in the
corpora (tests/data/reviewed_findings.toml, its instruction-grammar blocks): an error in a template or a member
template counts only once a compile of an instantiation shows ptxas rejecting it.

- ThunderKittens ``multimem<bf16>``/``multimem<half>`` (include/common/multimem.cuh): scalar
  .bf16/.f16 multimem.ld_reduce/st/red, which ptxas 13.0 has only as vectors or packed x2
  ("Unexpected instruction types specified for 'multimem.ld_reduce'").
- DeepEP ``ptx::st_bulk<N>`` (deep_ep/include/deep_ep/common/ptx.cuh): the st.bulk size passed
  with "r", where the instruction takes a 64-bit size ("Arguments mismatch").
- flashinfer's xqa ``tma::storeAsync<3/4/5>`` (csrc/xqa/tma.h): `cp.async.bulk.tensor.2d` with
  3, 4 and 5 coordinates ("Argument vector size mismatch").
- ThunderKittens ``tma::load_async`` with a cache policy on a tile without swizzle
  (include/ops/thread/memory/tile/tma.cuh): the template names ``%8`` of 8 operands; nvcc's
  code generator stops on it before ptxas ("asm operand index requested is larger than the
  number of asm operands provided"), PTX001.

Needs nvcc and the corpus checkouts (``$PTXLINT_CORPORA/git/<tree>``, default
``corpora/`` in ptxlint's cache folder: ``scripts/locations.py``); skipped otherwise.
"""

from __future__ import annotations

import os
import re

import pytest

from scripts.locations import corpora_root
from tests.toolchain_cache import INPUT, NVCC, OUTPUT, needs_nvcc, run_cached

CORPORA = str(corpora_root())


def tree(name: str, kind: str = "git") -> str:
    path = os.path.join(CORPORA, kind, name)
    if not os.path.isdir(path):
        pytest.skip(f"corpus tree {name} not under {CORPORA}/{kind}")
    return path


TK_PROBE = """#include <bit>
#include <cstdint>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include "common/multimem.cuh"
using namespace kittens;
template <class T>
__device__ void all(T *p, T *q) {
  using M = multimem<T>;
  M::template ld_reduce<reduce_op::ADD, memory_model::WEAK>(*q, p);
  M::template ld_reduce<reduce_op::ADD, memory_model::STRONG>(*q, p);
  M::template ld_reduce<reduce_op::MIN, memory_model::WEAK>(*q, p);
  M::template ld_reduce<reduce_op::MIN, memory_model::STRONG>(*q, p);
  M::template ld_reduce<reduce_op::MAX, memory_model::WEAK>(*q, p);
  M::template ld_reduce<reduce_op::MAX, memory_model::STRONG>(*q, p);
  M::template st<memory_model::WEAK>(p, *q);
  M::template st<memory_model::STRONG>(p, *q);
  M::template red<reduce_op::ADD>(p, *q);
}
__global__ void k(bf16 *p, bf16 *q, half *h, half *g) { all(p, q); all(h, g); }
"""

DEEPEP_PROBE = """#include <deep_ep/common/ptx.cuh>
__global__ void k() { __shared__ char buf[1024]; deep_ep::elastic::ptx::st_bulk<512>(buf); }
"""


def compile_probe(source: str, include: str, arch: str) -> str:
    assert NVCC is not None
    run = run_cached(NVCC, ["-std=c++20", "--expt-relaxed-constexpr",
                            f"-gencode=arch=compute_{arch},code=sm_{arch}", f"-I{include}",
                            "-c", INPUT, "-o", OUTPUT], source, filename="probe.cu",
                     inputs=[include])
    assert not run.ok, "the probe compiled: the reviewed defect is gone"
    return run.stderr


@needs_nvcc
def test_thunderkittens_scalar_half_multimem_is_rejected_by_ptxas() -> None:
    stderr = compile_probe(TK_PROBE, os.path.join(tree("ThunderKittens"), "include"), "90a")
    rejected = re.findall(r"error\s*: Unexpected instruction types specified for "
                          r"'multimem\.(\w+)'", stderr)
    # 6 ld_reduce, 2 st and 1 red per type, for bf16 and half
    assert sorted(rejected) == sorted(["ld_reduce"] * 12 + ["st"] * 4 + ["red"] * 2), stderr


@needs_nvcc
def test_deepep_st_bulk_with_a_32_bit_size_is_rejected_by_ptxas() -> None:
    stderr = compile_probe(DEEPEP_PROBE, os.path.join(tree("DeepEP"), "deep_ep", "include"),
                           "100a")
    assert re.search(r"error\s*: Arguments mismatch for instruction 'mov'", stderr), stderr


XQA_PROBE = """#include "tma.h"
template <uint32_t N>
__device__ void store(CUtensorMap const& map, char* buf, uint32_t a) {
  DimsLE<N> o;
  for (uint32_t i = 0; i < N; i++) o[i] = a + i;
  tma::storeAsync<N>(map, o, buf);
}
__global__ void k(const __grid_constant__ CUtensorMap map, uint32_t a) {
  __shared__ alignas(128) char buf[1024];
  store<3>(map, buf, a); store<4>(map, buf, a); store<5>(map, buf, a);
}
"""


@needs_nvcc
def test_flashinfer_xqa_store_async_with_more_coordinates_than_2d_is_rejected() -> None:
    include = os.path.join(tree("flashinfer-python", "src"), "csrc", "xqa")
    assert NVCC is not None
    run = run_cached(NVCC, ["-std=c++17", "-gencode=arch=compute_90a,code=sm_90a",
                            f"-I{include}", "-c", INPUT, "-o", OUTPUT], XQA_PROBE,
                     filename="probe.cu", inputs=[include])
    assert not run.ok, "the probe compiled: the reviewed defect is gone"
    mismatches = re.findall(r"error\s*: Argument 1 of instruction 'cp\.async\.bulk\.tensor': "
                            r"Argument vector size mismatch", run.stderr)
    assert len(mismatches) == 3, run.stderr


TK_CACHE_HINT_PROBE = """#include "kittens.cuh"
using namespace kittens;
using Plain = st<bf16, 64, 64, false>;  // no swizzle: the 4d branch, whose template says %8
using Swizzled = st<bf16, 64, 64>;  // the clean neighbour: the 5d branch has 9 operands
__global__ void k(const __grid_constant__ gl<bf16, -1, -1, -1, -1, Plain> g,
                  const __grid_constant__ gl<bf16, -1, -1, -1, -1, Swizzled> h) {
  extern __shared__ int smem[];
  __shared__ semaphore bar;
  tma::load_async<2, cache_policy::EVICT_FIRST>(*reinterpret_cast<Plain*>(smem), g,
                                                {0, 0, 0, 0}, bar);
  tma::load_async<2, cache_policy::EVICT_FIRST>(*reinterpret_cast<Swizzled*>(smem), h,
                                                {0, 0, 0, 0}, bar);
}
"""


@needs_nvcc
def test_thunderkittens_cache_hint_load_names_an_operand_it_lacks() -> None:
    include = os.path.join(tree("ThunderKittens"), "include")
    assert NVCC is not None
    # KITTENS_HOPPER: what ThunderKittens' Hopper builds define (tma:: exists only then)
    run = run_cached(NVCC, ["-std=c++20", "--expt-relaxed-constexpr", "-arch=sm_90a", "-ptx",
                            "-DKITTENS_HOPPER", f"-I{include}", INPUT, "-o", OUTPUT],
                     TK_CACHE_HINT_PROBE,
                     filename="probe.cu", inputs=[include])
    assert not run.ok, "the probe compiled: the reviewed defect is gone"
    lines = re.findall(r"tma\.cuh\((\d+)\): error: .*asm operand index requested is larger than "
                       r"the number of asm operands provided", run.stderr)
    # the asm statement whose template holds the reviewed line 719 begins on line 717
    assert lines == ["717"], run.stderr
