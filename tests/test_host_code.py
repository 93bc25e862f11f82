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


def test_hip_register_pinning_without_an_instruction_is_not_ptx() -> None:
    """HIP shares __device__ with CUDA: an empty template whose constraints or clobbers name
    AMD GCN registers (nvcc refuses both) is AMD code. A PTX template with such a letter, and
    an empty one with NVPTX letters and clobbers, are still linted."""
    text = """
#define CLOBBER_VREG_CASE(N) case N: asm volatile("" ::: "v" #N); break;
__device__ unsigned f(unsigned x, int r) {
  switch (r) { CLOBBER_VREG_CASE(0) CLOBBER_VREG_CASE(1) }
  asm volatile("" ::: "a0");
  asm volatile("" : "+s"(x));
  asm volatile("" : "+v"(x) :: "memory");
  asm volatile("" ::: "s[0:3]", "vcc");
  asm volatile("mov.u32 %0, %0;" : "+s"(x));
  asm volatile("" : "+r"(x) :: "memory");
  asm volatile("" ::: "r1");
  return x;
}
"""
    result = extract_statements(SourceFile("hip_regs.cuh", text))
    assert [s.template.text for s in result.statements] == ["mov.u32 %0, %0;", "", ""]
    amd = [reason for _, reason in result.skipped if "AMD GCN registers" in reason]
    assert len(amd) == 4  # the macro's uses are not listed (an expansion is counted at its
    # #define, whose clobber `"v" #N` names no register)


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


def test_a_header_macro_without_semicolons_is_another_assembler_outside_device_code() -> None:
    # ggml's ET-SoC (RISC-V) kernels: 'fence' and 'mov' are RISC-V words as well as PTX ones.
    text = (
        '#define FENCE __asm__ __volatile__("fence\\n" ::: "memory")\n'
        '#define FENCE_PTX asm volatile("fence.acq_rel.gpu;" ::: "memory")\n'
    )
    assert _linted(text, "platform.h") == ["fence.acq_rel.gpu;"]
    # the same text in device code is PTX (and PTX204 says what is wrong with it)
    device = '__device__ void f() { asm volatile("fence\\n" ::: "memory"); }\n'
    assert _linted(device, "platform.h") == ["fence\n"]


def test_a_branch_only_a_non_cuda_host_takes_is_never_ptx() -> None:
    text = """
__host__ __device__ void relax() {
#if defined(__CUDA_ARCH__)
  asm volatile("nanosleep.u32 100;");
#elif defined(__powerpc64__)
  asm volatile("or 1,1,1;");
#elif defined(__riscv) || defined(__aarch64__)
  asm volatile("or.b32 %0, %0, 1;" : "+r"(x));
#endif
}
"""
    result = extract_statements(SourceFile("spin.cuh", text))
    assert [s.template.text for s in result.statements] == [
        "nanosleep.u32 100;",
        "or.b32 %0, %0, 1;",  # AArch64 hosts build it
    ]
    assert [reason for _, reason in result.skipped] == [
        "host: under a guard for a host CUDA does not build for"
    ]


def test_a_branch_that_is_off_for_every_build_is_not_called_host_code() -> None:
    text = """
__device__ void f() {
#if 0 && defined(__CUDA_ARCH__)
  asm volatile("cvt.rn.f16x2.f32 %0, %1, %2;" : "=r"(a) : "f"(b), "f"(c));
#endif
}
"""
    result = extract_statements(SourceFile("k.cu", text))
    assert not any("host CUDA does not build for" in reason for _, reason in result.skipped)


def test_an_empty_template_outside_device_code_is_listed_as_a_compiler_barrier() -> None:
    text = (
        '#define BARRIER() asm volatile("" ::: "memory")\n'
        '#define OPAQUE(op) asm volatile(op ::: "memory")\n'
    )
    reasons = [r for _, r in extract_statements(SourceFile("util.h", text)).skipped]
    assert reasons[0] == "unknown: an empty template (a compiler barrier)"
    assert "empty template" not in reasons[1]  # a template from the macro's argument


def test_error_directives_are_found_where_a_line_starts_with_them() -> None:
    import re

    from ptxlint.frontends.cxx.guards import FileGuards

    text = "#error a\n  #error b\nx #error c\n\t# error d\n#errors e\n// #error f\n\r#error g\n#error"
    anchored = [m.start(1) for m in re.finditer(r"^[ \t]*(#)[ \t]*error\b", text, re.M)]
    assert list(FileGuards(text).directives.named("error")) == anchored
    assert [text[at:].split("\n")[0].split()[-1] for at in anchored] == ["a", "b", "d", "#error"]


def test_a_declaration_spelled_alike_is_judged_by_what_its_macros_mean_where_it_stands() -> None:
    # f and g spell the same declaration (`SPEC unsigned ...`, after a `;`), but SPEC says
    # __device__ only before the #undef; h spells __device__ itself after that
    text = """#define SPEC __device__
int x;
SPEC unsigned f(unsigned v) { unsigned r; asm("brev.b32 %0, %1;" : "=r"(r) : "r"(v)); return r; }
#undef SPEC
#define SPEC static
int y;
SPEC unsigned f(unsigned v) { unsigned r; asm("brev.b32 %0, %1;" : "=r"(r) : "r"(v)); return r; }
int z;
SPEC unsigned f(unsigned v) __device__ { unsigned r; asm("brev.b32 %0, %1;" : "=r"(r) : "r"(v)); return r; }
"""
    source = SourceFile("k.cu", text)
    result = extract_statements(source)
    assert [source.line_col(s.span.start).line for s in result.statements] == [3, 9]
    assert [source.line_col(at).line for at, reason in result.skipped
            if "host-only function" in reason] == [7]  # fmt: skip


def test_a_macro_named_only_in_a_comment_of_the_declaration_leaves_it_host_only() -> None:
    # a macro-looking word counts where it is code: in a comment after the declarator it
    # says nothing, so the function is host-only, not unknown
    text = """
static unsigned c(unsigned x) // see CUTE_HOST_DEVICE
{ unsigned r; asm("brev.b32 %0, %1;" : "=r"(r) : "r"(x)); return r; }
static unsigned d(unsigned x) CUTE_HOST_DEVICE
{ unsigned r; asm("brev.b32 %0, %1;" : "=r"(r) : "r"(x)); return r; }
"""
    source = SourceFile("k.cu", text)
    result = extract_statements(source)
    # d: a macro this file cannot see may say __device__, so it stays linted
    assert [source.line_col(s.span.start).line for s in result.statements] == [5]
    assert [source.line_col(at).line for at, reason in result.skipped
            if "host-only function" in reason] == [3]  # fmt: skip


def test_a_declaration_spelled_alike_is_still_judged_by_its_own_tree() -> None:
    # both spell `SPEC unsigned f(...)` after a `;` where SPEC means `static`: the macro's
    # answer is the same for both, but tree-sitter's recovery inside the second (the stray
    # `@`) leaves it unknown, never host-only
    text = """#define SPEC static
int x;
SPEC unsigned f(unsigned v) { unsigned r; asm("brev.b32 %0, %1;" : "=r"(r) : "r"(v)); return r; }
int y;
SPEC unsigned f(unsigned v) { unsigned r; asm("brev.b32 %0, %1;" : "=r"(r) : "r"(v)); return r @; }
"""
    source = SourceFile("k.cu", text)
    result = extract_statements(source)
    assert [source.line_col(s.span.start).line for s in result.statements] == [5]
    assert [source.line_col(at).line for at, reason in result.skipped
            if "host-only function" in reason] == [3]  # fmt: skip


# A host function returning a reference, and one returning a function pointer: each declares
# its name inside a declarator of its result, which the host-only verdict must read through.
NAMED_INSIDE_THE_RESULT = """
int& counter(int *p) { asm volatile("mov.u32 %0, 1;" : "=r"(*p)); return *p; }
void (*pick(int *p))(float) { asm volatile("mov.u32 %0, 2;" : "=r"(*p)); return 0; }
"""


def test_a_host_function_returning_a_reference_or_a_function_pointer_is_host_only() -> None:
    result = extract_statements(SourceFile("k.cu", NAMED_INSIDE_THE_RESULT))
    assert result.statements == []
    assert [reason for _, reason in result.skipped] == 2 * [
        "host: in a host-only function (no __device__/__global__, no device caller here)"
    ]


def test_a_device_call_by_name_keeps_such_a_function_linted() -> None:
    text = NAMED_INSIDE_THE_RESULT + "__global__ void k(int *p) { counter(p); pick(p); }\n"
    result = extract_statements(SourceFile("k.cu", text))
    assert [(s.template.text, s.context.function) for s in result.statements] == [
        ("mov.u32 %0, 1;", "counter"), ("mov.u32 %0, 2;", "pick")
    ]


def test_a_keyword_the_file_redefines_as_a_device_specifier_makes_device_code() -> None:
    # sppark's field headers: `# define inline __device__ __forceinline__` under __CUDACC__
    text = """#if defined(__CUDACC__)
# define inline __device__ __forceinline__
#endif
class fp { unsigned v;
  inline fp& dbl() { asm("add.u32 %0, %0, %0;" : "+r"(v)); return *this; }
};
#undef inline
inline unsigned host_side(unsigned x) { asm("bswap %0" : "+r"(x)); return x; }
"""
    assert _linted(text, "fp.cuh") == ["add.u32 %0, %0, %0;"]
    # a redefinition that says nothing of the device leaves a host function host code
    host = text.replace("__device__ __forceinline__", "__inline")
    assert _linted(host, "fp.cuh") == []


def test_a_specifier_macro_reaching_the_cuda_headers_definitions_is_still_device() -> None:
    # host_defines.h defines the execution-space words as attributes: expanded through them,
    # ``DECL`` would say ``static __attribute__((device))``, read as no device word
    text = """#define __location__(a) __attribute__((a))
#define __device__ __location__(device)
#define DECL static __device__
DECL f(unsigned *p) { asm volatile("st.global.u32 [%0], 1;" :: "l"(p)); }
"""
    assert _linted(text) == ["st.global.u32 [%0], 1;"]


def test_the_host_branch_of_a_host_device_function_is_not_device_code() -> None:
    """The `#else`/`#elif` after `#ifdef __CUDA_ARCH__` is the host compiler's: no device pass
    reads it, so the function's `__device__` does not make its assembly PTX there. Text
    that is PTX through and through stays linted (PTX404: PTX the host compiler gets)."""
    host_branches = """
__host__ __device__ void add(unsigned long& lo, unsigned long& hi, unsigned long b) {
#ifdef __CUDA_ARCH__
  asm("add.cc.u64 %0, %0, %2;\\n\\taddc.u64 %1, %1, 0;" : "+l"(lo), "+l"(hi) : "l"(b));
#elif defined(__x86_64__)
  asm("add    %q2, %q0\\n\\tadc    %q1, %q1\\n\\t" : "+r"(lo), "+r"(hi) : "r"(b) : "cc");
#elif defined(__aarch64__)
  asm("clz %0, %1" : "=r"(lo) : "r"(b));
#else
  asm("add.u64 %0, %0, %1;" : "+l"(lo) : "l"(b));
#endif
}
"""
    assert _linted(host_branches) == [
        "add.cc.u64 %0, %0, %2;\n\taddc.u64 %1, %1, 0;",
        "add.u64 %0, %0, %1;",
    ]
    # the same text where the device pass reads it is PTX, and PTX204 says what it lacks
    device_branch = """
__host__ __device__ int count(unsigned b) {
  int r;
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 700
  asm("clz %0, %1" : "=r"(r) : "r"(b));
#endif
  return r;
}
"""
    assert _linted(device_branch) == ["clz %0, %1"]


NVPTX_RUNTIME = """typedef unsigned int u32;
u32 match_all(u32 mask, u32 value) {
  u32 ret;
  asm volatile("match.all.sync.b32 %0, %1, %2;" : "=r"(ret) : "r"(value), "r"(mask));
  return ret;
}
unsigned long long ticks() {
  unsigned lo, hi;
  __asm__ __volatile__("rdtsc" : "=a"(lo), "=d"(hi));
  return ((unsigned long long)hi << 32) | lo;
}
"""


def test_a_cpp_file_without_cuda_markers_is_judged_by_its_templates() -> None:
    # Taichi's LLVM runtime: plain functions that clang builds for NVPTX. nvcc builds no
    # device code from such a file, so no __device__ says nothing; the PTX template is read
    # and the x86 one beside it is still host code
    assert _linted(NVPTX_RUNTIME, "runtime.cpp") == ["match.all.sync.b32 %0, %1, %2;"]
    # in a .cu file (or a .cpp with CUDA markers) a plain function stays host-only
    assert _linted(NVPTX_RUNTIME, "runtime.cu") == []
    marked = NVPTX_RUNTIME + "__global__ void k() {}\n"
    assert _linted(marked, "runtime.cpp") == []
