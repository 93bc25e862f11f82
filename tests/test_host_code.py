"""Host-only code and other host ISAs are never read as PTX; anything unknown stays linted."""

from __future__ import annotations

from pathlib import Path

from ptxlint.engine import extract_statements
from ptxlint.model import SourceFile


def _linted(text: str, path: str = "k.cu") -> list[str]:
    return [s.template.text for s in extract_statements(SourceFile(path, text)).statements]


def test_header_that_errors_unless_built_for_sparc_is_never_ptx() -> None:
    text = """
#if !defined(__sparc__) && !defined(__sparc)
#error "SPARC hosts only"
#endif
static inline unsigned long fsr(void) {
  unsigned long v;
  __asm__ __volatile__("st %%fsr, %0" : "=m"(v));
  return v;
}
__device__ void f() { asm volatile("trap;"); }
"""
    result = extract_statements(SourceFile("sparc_timer.h", text))
    assert result.statements == []
    assert all("#error" in reason for _, reason in result.skipped)


def test_error_that_a_cuda_build_never_reaches_changes_nothing() -> None:
    text = """
#ifndef __CUDACC__
#error "compile with nvcc"
#endif
#if CUDA_VERSION < 11000
#error "CUDA 11 or newer"
#endif
__device__ void f() { asm volatile("trap;"); }
"""
    assert _linted(text) == ["trap;"]


def test_other_host_isas_in_a_device_function_are_not_ptx() -> None:
    text = """
__device__ void f() {
  asm volatile("membar #StoreLoad" ::: "memory");
  asm volatile("lwsync" ::: "memory");
  asm volatile("fence.i");
  asm volatile("membar.gl;" ::: "memory");
}
"""
    assert _linted(text) == ["membar.gl;"]


def test_unknown_or_device_specifier_macros_keep_the_function_linted(tmp_path: Path) -> None:
    (tmp_path / "defs.cuh").write_text("#define HD __host__ __device__\n")
    kernel = tmp_path / "k.cu"
    text = """#include "defs.cuh"
HD unsigned a(unsigned x) { unsigned r; asm("brev.b32 %0, %1;" : "=r"(r) : "r"(x)); return r; }
CUTE_HOST_DEVICE unsigned b(unsigned x) { unsigned r; asm("brev.b32 %0, %1;" : "=r"(r) : "r"(x)); return r; }
static unsigned c(unsigned x) { unsigned r; asm("brev.b32 %0, %1;" : "=r"(r) : "r"(x)); return r; }
void d(unsigned* p) {
  auto g = [=] __device__ (unsigned x) { unsigned r; asm("brev.b32 %0, %1;" : "=r"(r) : "r"(x)); return r; };
}
"""
    kernel.write_text(text)
    result = extract_statements(SourceFile(str(kernel), text))
    lines = sorted(
        SourceFile(str(kernel), text).line_col(s.span.start).line for s in result.statements
    )
    # a: device through the header's macro; b: unknown macro, the template decides;
    # c: host-only; the lambda in d may be a device lambda
    assert lines == [2, 3, 6]
    assert any("host-only function" in reason for _, reason in result.skipped)


def test_a_c_file_without_cuda_code_is_host_code() -> None:
    # nvcc compiles .c files as host C: RISC-V's bare `fence` there is not PTX's fence
    text = '#define FENCE __asm__ __volatile__("fence\\n" ::: "memory");\nvoid flush(void) { FENCE; }\n'
    assert _linted(text, "conv_2d.c") == []
    assert len(_linted(text.replace("void flush", "__device__ void flush"), "k.c")) >= 1
