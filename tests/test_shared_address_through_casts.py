"""PTX301 through integer casts: a pointer cast to an integer keeps its generic value (the cast
changes the C++ type, not the address space), so `(uint64_t)&smem[i]` or
`(unsigned)(size_t)&smem[i]` in a `.shared` access is the generic-pointer defect, and the
same cast of `__cvta_generic_to_shared`'s result is right. ptxas accepts all of them without a
word (the test compiles them), and the PTX nvcc hands it shows the difference: for the casts
of the pointer, nvcc turns the shared variable's address into a generic one
(`cvta.shared.u64`) and that generic value is the shared load's address; for the casts of
`__cvta_generic_to_shared`'s result, the address stays the shared window's."""

from __future__ import annotations

import pytest

from tests.conftest import lint_text
from tests.toolchain_cache import INPUT, NVCC, OUTPUT, needs_nvcc, run_cached

KERNEL = """\
#include <cstdint>
#include <cstddef>
__global__ void k(float *out) {
  __shared__ float smem[256];
  int i = threadIdx.x;
  smem[i] = i;
  __syncthreads();
  float v;
  asm volatile("ld.shared.f32 %0, [%1];" : "=f"(v) : OPERAND : "memory");
  out[i] = v;
}
"""

GENERIC = {
    "uint64-cast": '"l"((uint64_t)&smem[i])',
    "reinterpret-cast": '"l"(reinterpret_cast<uintptr_t>(&smem[i]))',
    "truncated-cast": '"r"((unsigned)(size_t)&smem[i])',
}
SHARED = {
    "converted-then-64": '"l"((uint64_t)__cvta_generic_to_shared(&smem[i]))',
    "converted-then-32": '"r"((uint32_t)__cvta_generic_to_shared(&smem[i]))',
}


def _ptx301(operand: str) -> list[str]:
    return [f.message for f in lint_text(KERNEL.replace("OPERAND", operand), select=("PTX301",))]


@pytest.mark.parametrize("case", sorted(GENERIC))
def test_a_generic_pointer_through_an_integer_cast_is_flagged(case: str) -> None:
    [message] = _ptx301(GENERIC[case])
    assert "generic address" in message


@pytest.mark.parametrize("case", sorted(SHARED))
def test_an_integer_cast_of_a_shared_window_address_is_not(case: str) -> None:
    assert _ptx301(SHARED[case]) == []


def _ptx(operand: str) -> str:
    assert NVCC is not None
    run = run_cached(NVCC, ["-arch=sm_90", "-O3", "-ptx", INPUT, "-o", OUTPUT],
                     KERNEL.replace("OPERAND", operand), filename="k.cu", read_output=True)
    assert run.ok, run.stderr
    return run.output


@needs_nvcc
@pytest.mark.parametrize("case", sorted(GENERIC))
def test_nvcc_hands_ptxas_a_generic_address_and_ptxas_says_nothing(case: str) -> None:
    assert "cvta.shared.u64" in _ptx(GENERIC[case])
    assert NVCC is not None
    run = run_cached(NVCC, ["-arch=sm_90", "-c", INPUT, "-o", OUTPUT],
                     KERNEL.replace("OPERAND", GENERIC[case]), filename="k.cu")
    assert run.ok and "warning" not in run.stderr.lower()


@needs_nvcc
@pytest.mark.parametrize("case", sorted(SHARED))
def test_the_converted_value_stays_a_shared_window_address(case: str) -> None:
    assert "cvta.shared" not in _ptx(SHARED[case])
