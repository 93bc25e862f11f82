"""A header written for a bare clang (it defines CUDA's `__device__` as clang's attribute, as
Warp's cuda_crt.h does under `#if defined(__clang__)`) is clang-only code: nvcc never compiles
it, so nvcc's constraint rules do not apply there. clang takes the `i` constraint and a 2-byte
class in an `h` register; nvcc refuses both (the toolchain test shows nvcc's side)."""

from __future__ import annotations

from tests.conftest import lint_text
from tests.toolchain_cache import INPUT, NVCC, OUTPUT, needs_nvcc, run_cached

BODY = """
struct __half { unsigned short u; };
__device__ short half_as_short(const __half h) {
  short i;
  asm("{  mov.b16 %0, %1;}\\n" : "=h"(i) : "h"(h));
  return i;
}
#define prof_trigger(c) __asm__ __volatile__("pmevent \\t%0;" ::"i"(c))
__device__ void trigger() { prof_trigger(1); }
"""
CLANG_HEAD = "#pragma once\n#define __device__ __attribute__((device))\n"


def _rules(text: str) -> list[str]:
    return sorted(f.rule for f in lint_text(text, path="cuda_crt.h", select=("PTX002", "PTX004")))


def test_a_header_written_for_clang_gets_no_nvcc_constraint_findings() -> None:
    assert _rules(CLANG_HEAD + BODY) == []


def test_the_same_code_for_nvcc_is_flagged() -> None:
    assert _rules(BODY) == ["PTX002", "PTX004"]


@needs_nvcc
def test_nvcc_refuses_what_clang_takes() -> None:
    assert NVCC is not None
    run = run_cached(NVCC, ["-arch=sm_90", "-c", INPUT, "-o", OUTPUT],
                     BODY.replace("struct __half", "struct my_half").replace("__half h", "my_half h"),
                     filename="k.cu")
    assert not run.ok
