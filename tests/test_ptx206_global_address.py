"""PTX206 on a 32-bit register as the .global address of cp.async, the bulk copies, the bulk
prefetch and tensormap.replace: ptxas takes it (measured here where ptxas is found), the
address loses its upper half, and the access faults at run time (measured where a GPU is
found)."""

from __future__ import annotations

from pathlib import Path

import pytest

from ptxlint.verify.recipes import NONE, recipe_for
from tests.conftest import lint_text
from tests.toolchain_cache import (
    INPUT,
    OUTPUT,
    PTXAS,
    gpu_program,
    needs_gpu,
    needs_ptxas,
    run_cached,
)

HEAD = (
    "#include <cstdint>\n"
    "__device__ void f(const float* g, unsigned bar, unsigned n, uint64_t wide) {\n"
    "  __shared__ float t[64];\n"
    "  unsigned s = static_cast<unsigned>(__cvta_generic_to_shared(&t[threadIdx.x]));\n"
    "  uint32_t narrow = static_cast<uint32_t>(reinterpret_cast<uintptr_t>(g));\n"
)


def _rules(body: str) -> list[tuple[str, str]]:
    found = lint_text(HEAD + body + "}\n", select=("PTX206", "PTX004", "PTX301"))
    return [(f.rule, f.message) for f in found]


@pytest.mark.parametrize("statement", [
    'asm volatile("cp.async.ca.shared.global [%0], [%1], 4;" :: "r"(s), "r"(narrow) : "memory");',
    'asm volatile("cp.async.cg.shared.global [%0], [%1+16], 16;" :: "r"(s), "r"(narrow) : "memory");',
    'asm volatile("cp.async.bulk.shared::cta.global.mbarrier::complete_tx::bytes [%0], [%1], 256,'
    ' [%2];" :: "r"(s), "r"(narrow), "r"(bar) : "memory");',
    'asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], 16;"'
    ' :: "r"(narrow), "r"(s) : "memory");',
    'asm volatile("cp.reduce.async.bulk.global.shared::cta.bulk_group.add.u32 [%0], [%1], 16;"'
    ' :: "r"(narrow), "r"(s) : "memory");',
    'asm volatile("cp.async.bulk.prefetch.L2.global [%0], 16;" :: "r"(narrow) : "memory");',
])
def test_a_32_bit_global_address_of_a_copy_is_reported(statement: str) -> None:
    found = _rules("  " + statement + "\n")
    assert [rule for rule, _ in found] == ["PTX206"], found
    assert "is 64 bits wide: ptxas takes the 32-bit register, and the address loses its " \
        "upper half" in \
        found[0][1]


@pytest.mark.parametrize(("statement", "rules"), [
    # the 64-bit value in "l", the 32-bit shared-window side in "r": nothing to say
    ('asm volatile("cp.async.ca.shared.global [%0], [%1], 4;" :: "r"(s), "l"(g) : "memory");',
     []),
    ('asm volatile("cp.async.bulk.prefetch.L2.global [%0], 16;" :: "l"(wide) : "memory");', []),
    # a pointer in "r" is nvcc's error first: PTX004's one finding
    ('asm volatile("cp.async.ca.shared.global [%0], [%1], 4;" :: "r"(s), "r"(g) : "memory");',
     ["PTX004"]),
    # a shared-window offset as the global address: PTX301's one finding
    ('asm volatile("cp.async.ca.shared.global [%0], [%1], 4;" :: "r"(s), "r"(s) : "memory");',
     ["PTX301"]),
])
def test_other_defects_of_the_address_keep_their_own_rule(statement: str,
                                                          rules: list[str]) -> None:
    assert [rule for rule, _ in _rules("  " + statement + "\n")] == rules


def test_verify_does_not_call_the_clean_compile_a_refutation() -> None:
    found = lint_text(HEAD + '  asm volatile("cp.async.ca.shared.global [%0], [%1], 4;" '
                      ':: "r"(s), "r"(narrow) : "memory");\n}\n', select=("PTX206",))
    recipe = recipe_for("PTX206", found[0])
    assert recipe.probes == (NONE,) and "run time" in recipe.why_none


_PTX = """.version 8.6
.target sm_90a
.address_size 64
.visible .entry k(.param .u64 g) {
  .reg .b32 %r<4>;
  .reg .b64 %rd<2>;
  ld.param.u64 %rd1, [g];
  cvt.u32.u64 %r1, %rd1;
  mov.u32 %r2, 0;
  INSTRUCTION
  ret;
}
"""


@needs_ptxas
@pytest.mark.parametrize("instruction", [
    "cp.async.ca.shared.global [%r2], [%r1], 4;",
    "cp.async.bulk.global.shared::cta.bulk_group [%r1], [%r2], 16;",
    "cp.async.bulk.prefetch.L2.global [%r1], 16;",
])
def test_ptxas_takes_the_32_bit_register_where_ld_global_it_refuses(instruction: str) -> None:
    assert PTXAS is not None
    command = ["-arch=sm_90a", INPUT, "-o", OUTPUT]
    taken = run_cached(PTXAS, command, _PTX.replace("INSTRUCTION", instruction),
                       filename="k.ptx")
    assert taken.returncode == 0, taken.stderr
    refused = run_cached(PTXAS, command, _PTX.replace("INSTRUCTION", "ld.global.u32 %r3, [%r1];"),
                         filename="k.ptx")
    assert refused.returncode != 0 and "32-bit address" in refused.stderr


_KERNEL = r"""
#include <cstdint>
#include <cstdio>
__global__ void ca(const float* g, float* out, int wide) {
  __shared__ __align__(16) float t[64];
  unsigned s = (unsigned)__cvta_generic_to_shared(&t[threadIdx.x]);
  const float* src = g + threadIdx.x;
  if (wide) {
    asm volatile("cp.async.ca.shared.global [%0], [%1], 4;" :: "r"(s), "l"(src) : "memory");
  } else {
    unsigned narrow = (unsigned)(uintptr_t)src;
    asm volatile("cp.async.ca.shared.global [%0], [%1], 4;" :: "r"(s), "r"(narrow) : "memory");
  }
  asm volatile("cp.async.wait_all;" ::: "memory");
  __syncthreads();
  out[threadIdx.x] = t[threadIdx.x];
}
int main(int argc, char** argv) {
  float h[64], r[64] = {0}, *g, *out;
  for (int i = 0; i < 64; ++i) h[i] = i + 1;
  cudaMalloc(&g, 256); cudaMalloc(&out, 256);
  cudaMemcpy(g, h, 256, cudaMemcpyHostToDevice); cudaMemset(out, 0, 256);
  ca<<<1, 64>>>(g, out, argv[1][0] == '1');
  cudaError_t e = cudaDeviceSynchronize();
  cudaMemcpy(r, out, 256, cudaMemcpyDeviceToHost);
  int ok = 0;
  for (int i = 0; i < 64; ++i) ok += r[i] == h[i];
  printf("%d %d\n", e == cudaSuccess, ok);
  return 0;
}
"""


@needs_gpu
def test_the_widened_address_faults_where_the_64_bit_one_copies(tmp_path: Path) -> None:
    run = gpu_program(str(tmp_path), _KERNEL, "-arch=sm_80")
    wide, narrow = run("1", timeout=60).split(), run("0", timeout=60).split()
    assert wide == ["1", "64"]
    assert narrow[0] == "0" or narrow[1] != "64"
