"""Proof from nvcc/ptxas 13.0 for the tensor-core grammar errors reviewed as real defects in
the corpora (tests/data/reviewed_findings.toml, its tensor-core grammar block):

- flashinfer ``m16k32_rowsum_f8f8f32<__nv_fp8_e5m2>`` (include/flashinfer/mma.cuh): the e5m2
  branch spells ``.m16n8k16`` with the fragments of ``.m16n8k32``.
- fmha_v2's six 64x8 FP8 QGMMA specializations (csrc/fmha_v2/fmha/hopper/utils_qgmma.h): eight
  accumulators where m64n8 has four (one also spells ``.m64n64k32``).
- flashinfer's AlphaMoE/cake ``mma_ss_step`` (csrc/alphamoe_nvfp4_sm100_device_helpers.cuh and
  its copies in generated kernels): ``tcgen05.mma...kind::mxf4nvf4`` without block scaling.

fmha_v2's ``Hgmma_rfa_fp16<8, TB>`` (utils_hgmma.h), whose operand list names an undeclared
``desc_a``, is proven on an instantiation in tests/test_corpus_instantiation_evidence.py.

Needs nvcc and the flashinfer-python sdist (``$PTXLINT_CORPORA/src/flashinfer-python``,
default ``corpora/`` in ptxlint's cache folder: ``scripts/locations.py``); skipped
otherwise.
"""

from __future__ import annotations

import os
import re

import pytest

from scripts.locations import corpora_root
from tests.toolchain_cache import INPUT, NVCC, OUTPUT, needs_nvcc, run_cached

CORPORA = str(corpora_root())


def flashinfer() -> str:
    path = os.path.join(CORPORA, "src", "flashinfer-python")
    if not os.path.isdir(path):
        pytest.skip(f"flashinfer-python not unpacked under {CORPORA}/src")
    return path


ROWSUM_PROBE = """#include <cstdint>
#include <type_traits>
#include <cuda_fp8.h>
#include <cuda_fp16.h>
#include <cuda_bf16.h>
#include <flashinfer/mma.cuh>
__global__ void k(float* d, __nv_fp8_e5m2* s) { flashinfer::mma::m16k32_rowsum_f8f8f32(d, s); }
"""

QGMMA_PROBE = """#include <cstdint>
#include <fmha/hopper/utils_qgmma.h>
__global__ void k(uint64_t a, uint64_t b, uint32_t* acc, uint32_t const* r) {
  uint32_t (&c)[4] = *reinterpret_cast<uint32_t (*)[4]>(acc);
  uint32_t const (&ra)[4] = *reinterpret_cast<uint32_t const (*)[4]>(r);
  fmha::Qgmma_e4m3_e5m2_fp32<8>::mma(a, b, c);
  fmha::Qgmma_rfa_e4m3_e5m2_fp32<8>::mma(ra, b, c);
  fmha::Qgmma_e5m2_e4m3_fp32<8>::mma(a, b, c);
  fmha::Qgmma_rfa_e5m2_e4m3_fp32<8>::mma(ra, b, c);
  fmha::Qgmma_e5m2_e5m2_fp32<8>::mma(a, b, c);
  fmha::Qgmma_rfa_e5m2_e5m2_fp32<8>::mma(ra, b, c);
}
"""

def compile_probe(source: str, include: str, arch: str) -> str:
    assert NVCC is not None
    run = run_cached(NVCC, ["-std=c++17", f"-gencode=arch=compute_{arch},code=sm_{arch}",
                            f"-I{include}", "-c", INPUT, "-o", OUTPUT], source,
                     filename="probe.cu", inputs=[include])
    assert not run.ok, "the probe compiled: the reviewed defect is gone"
    return run.stderr


@needs_nvcc
def test_flashinfer_e5m2_rowsum_mma_shape_is_rejected_by_ptxas() -> None:
    stderr = compile_probe(ROWSUM_PROBE, os.path.join(flashinfer(), "include"), "89")
    assert re.search(r"error\s*: Argument vector size mismatch for instruction 'mma'", stderr), \
        stderr


@needs_nvcc
def test_fmha_v2_64x8_qgmma_accumulators_are_rejected_by_ptxas() -> None:
    stderr = compile_probe(QGMMA_PROBE, os.path.join(flashinfer(), "csrc", "fmha_v2"), "90a")
    rejected = re.findall(r"error\s*: Argument vector size mismatch for instruction "
                          r"'wgmma\.mma_async with FP8 types'", stderr)
    assert len(rejected) == 6, stderr


MMA_SS_PROBE = """#include <cstdint>
#include "{header}"
__global__ void probe_k(int a, int b, int t, uint32_t d, int e, uint32_t x, uint32_t y) {{
  {scope}mma_ss_step(a, b, t, d, e, x, y);
}}
"""
_SCALE_VEC = r"error\s*: Modifier '\.kind::mxf4nvf4' requires modifier '\.scale_vectorsize'"


@needs_nvcc
@pytest.mark.parametrize("header, scope", [
    ("alphamoe_nvfp4_sm100_device_helpers.cuh", "alphamoe_nvfp4_device::"),
    ("fused_moe/cake_kimi_k3_situ/"
     "cake_kimi_k3_nvfp4_situ_routed_moe_93e2350178fff1f9c9ac_kernel.cu", ""),
])
def test_mxf4nvf4_mma_without_block_scale_is_rejected_by_ptxas(header: str, scope: str) -> None:
    csrc = os.path.join(flashinfer(), "csrc")
    if not os.path.exists(os.path.join(csrc, header)):
        pytest.skip(f"{header} not in this flashinfer-python")
    stderr = compile_probe(MMA_SS_PROBE.format(header=header, scope=scope), csrc, "100a")
    assert re.search(_SCALE_VEC, stderr), stderr
