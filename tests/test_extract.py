"""Extraction: every asm statement found, with an exact source map."""

from __future__ import annotations

from ptxlint.engine import extract_statements
from ptxlint.model import HOLE, SourceFile
from tests.conftest import lint_text


def statements(text: str, path: str = "t.cu"):
    return extract_statements(SourceFile(path, text)).statements


def test_finding_in_third_piece_points_at_exact_line_and_column() -> None:
    text = (
        "__device__ int f(int a, int b) {\n"
        "  int d;\n"
        '  asm("{\\n\\t"            // first piece\n'
        '      /* between */ "add.s32 %0, %1, 1;\\n\\t"\n'
        '      "sub.s32 %0, %0, %n1;\\n\\t}"\n'
        '      : "=r"(d) : "r"(a));\n'
        "  return d;\n"
        "}\n"
    )
    findings = lint_text(text, select=("PTX007",))
    assert len(findings) == 1
    source = SourceFile("t.cu", text)
    start = source.line_col(findings[0].span.start)
    end = source.line_col(findings[0].span.end)
    line5 = text.splitlines()[4]
    assert (start.line, start.column) == (5, line5.index("%n1") + 1)
    assert (end.line, end.column) == (5, line5.index("%n1") + 4)


def test_escapes_map_to_their_spelling() -> None:
    text = '__device__ void g() { asm volatile("a\\tb\\x41\\101\\"" ::); }'
    (s,) = statements(text, "t.cu") or [None]
    assert s is not None
    assert s.template.text == 'a\tbAA"'
    tab = s.template.source_span(1, 2)
    assert text[tab.start : tab.end] == "\\t"
    hex_a = s.template.source_span(3, 4)
    assert text[hex_a.start : hex_a.end] == "\\x41"
    octal = s.template.source_span(4, 5)
    assert text[octal.start : octal.end] == "\\101"


def test_raw_string_and_line_continuation() -> None:
    text = (
        '__device__ void g(int x) {\n  asm volatile(R"(mov.u32 %0, 1;)" "\\\n'
        'add.u32 %0, %0, 1;" : "+r"(x));\n}\n'
    )
    (s,) = statements(text)
    assert s.template.text == "mov.u32 %0, 1;add.u32 %0, %0, 1;"
    span = s.template.source_span(14, 17)
    assert text[span.start : span.end] == "add"


def test_all_spellings_and_qualifiers_are_found() -> None:
    text = """
__device__ void k(int x) {
  asm("membar.gl;");
  __asm__ __volatile__("membar.cta;");
  __asm volatile("trap;");
  asm volatile("mov.u32 %0, %0;" : "+r"(x));
  auto l = [&]() { asm("exit;"); };
  // asm("in a comment");
  const char* s = "asm(\\"in a string\\")";
}
template <int N> __device__ void t() { asm volatile("bar.sync %0;" :: "n"(N)); }
struct S { __device__ void m() { asm("nanosleep.u32 1;"); } };
"""
    found = statements(text)
    assert [s.keyword for s in found] == ["asm", "__asm__", "__asm", "asm", "asm", "asm", "asm"]
    assert [s.is_volatile for s in found] == [False, True, True, True, False, True, False]
    assert found[3].extended and not found[0].extended


def test_statement_in_define_body_maps_into_the_macro() -> None:
    text = (
        "#define LOAD(dst, p) \\\n"
        '  asm volatile("ld.global.u32 %0, [%1];" : "=r"(dst) : "l"(p))\n'
        "__device__ int f(const int* p) { int v; LOAD(v, p); return v; }\n"
    )
    s, use = statements(text)
    assert s.context.macro == "LOAD"
    assert s.template.text == "ld.global.u32 %0, [%1];"
    assert [o.expression for o in s.operands] == ["dst", "p"]
    assert SourceFile("t.cu", text).line_col(s.span.start).line == 2
    # the invocation is linted too, with the arguments in place of the parameters
    assert use.context.macro is None and use.context.function == "f"
    assert use.context.expansion is not None
    assert use.context.expansion.invocation == "LOAD(v, p)"
    assert [o.expression for o in use.operands] == ["v", "p"]
    assert [text[o.expression_span.start : o.expression_span.end] for o in use.operands] == [
        "v",
        "p",
    ]
    assert [o.ctype.spelling if o.ctype else None for o in use.operands] == ["int", "int *"]
    # template characters map into the #define's body, where they are spelled
    span = use.template.source_span(0, 2)
    assert text[span.start : span.end] == "ld"


def test_define_body_with_a_block_comment_between_pieces_is_read_whole() -> None:
    """tree-sitter ends a #define's body at a block comment; the statement goes on past it
    to the end of the directive."""
    text = (
        "#define STEP(x) \\\n"
        '  asm volatile("{\\n" \\\n'
        '               ".reg .pred p;\\n" \\\n'
        "               /* element 1 (it's re-tested) */ \\\n"
        '               "setp.ne.u32 p, %0, 0;\\n" \\\n'
        '               "@p add.u32 %0, %0, 1;\\n" \\\n'
        '               "}" : "+r"(x))\n'
        "__device__ void f(unsigned x) { STEP(x); }\n"
    )
    body, use = statements(text)
    assert body.context.macro == "STEP"
    assert body.template.text == use.template.text
    assert body.template.text.endswith("@p add.u32 %0, %0, 1;\n}")
    assert lint_text(text, select=("PTX203",)) == []


def test_macro_pieces_expand_with_exact_positions_and_string_macros_resolve() -> None:
    text = """
#define STRINGIFY(x) #x
#if defined(_MSC_VER) && defined(_WIN64) || defined(__LP64__)
#define __LDG_PTR "l"
#else
#define __LDG_PTR "r"
#endif
#define OP "add"
__device__ float f(const float* ptr, float a) {
  float r;
  asm("{" STRINGIFY(fma) ".f32 %0,%1;}" : "=f"(r) : "f"(a));
  asm("ld.global.nc.f32 %0, [%1];" : "=f"(r) : __LDG_PTR(ptr));
  asm(OP ".f32 %0, %0, %1;" : "+f"(r) : "f"(a));
  return r;
}
"""
    s1, s2, s3 = statements(text)
    assert s1.template.text == "{fma.f32 %0,%1;}"
    assert not s1.template.has_holes
    # the stringified argument's characters are the argument's own characters
    span = s1.template.source_span(1, 4)
    assert text[span.start : span.end] == "fma"
    assert s2.operands[1].constraint.letters == "l"
    assert not s2.operands[1].constraint.opaque
    assert s3.template.text == "add.f32 %0, %0, %1;"


def test_a_constraint_joined_from_a_literal_and_a_macro() -> None:
    # "=" _ASM_PTR_ is "=l" once the macro is expanded and the literals joined; written with no
    # blank ("="_ASM_PTR_), C++11 reads a user-defined literal, which nvcc rejects: opaque
    text = """
#define _ASM_PTR_ "l"
__device__ void f(float* ptr, float v) {
  asm volatile("st.global.f32 [%0], %1;" : "=" _ASM_PTR_(ptr) : "f"(v));
  asm volatile("st.global.f32 [%0], %1;" : "="_ASM_PTR_(ptr) : "f"(v));
  asm volatile("st.global.f32 [%0], %1;" : "=" UNKNOWN(ptr) : "f"(v));
}
"""
    joined, suffixed, unknown = statements(text)
    constraint = joined.operands[0].constraint
    assert (constraint.modifiers, constraint.letters, constraint.opaque) == ("=", "l", False)
    assert suffixed.operands[0].constraint.opaque
    assert unknown.operands[0].constraint.opaque


def test_macro_piece_using_a_parameter_of_its_define_stays_a_hole() -> None:
    text = """
#define STRINGIFY(x) #x
#define OP(op) asm("{" STRINGIFY(op) ".f32 %0,%1;}" : "=f"(r) : "f"(a))
"""
    (s,) = statements(text)
    assert s.template.text == "{" + HOLE + ".f32 %0,%1;}"


def test_ambiguous_string_macro_stays_opaque() -> None:
    text = """
#ifdef SOMETHING
#define PTR "r"
#else
#define PTR "l"
#endif
__device__ void f(int* p) { asm volatile("st.u32 [%0], 1;" :: PTR(p)); }
"""
    (s,) = statements(text)
    assert s.operands[0].constraint.opaque


def test_host_assembly_is_never_linted() -> None:
    text = """
static inline unsigned long long rdtsc(void) {
  unsigned lo, hi;
  __asm__ __volatile__("rdtsc" : "=a"(lo), "=d"(hi));
  return ((unsigned long long)hi << 32) | lo;
}
static inline void cpu_relax(void) { __asm__ __volatile__("pause" ::: "memory"); }
static inline int dot(int32x4_t acc, int8x16_t a, int8x16_t b) {
  __asm__("sdot %0.4s, %1.16b, %2.16b" : "+w"(acc) : "w"(a), "w"(b));
  __asm__ __volatile__("ldr %q0, [%1]" : "=w"(acc) : "r"(a) : "memory");
  __asm__ volatile("movl %%eax, %0" : "=r"(lo) :: "%eax");
  return acc;
}
"""
    for path in ("ggml-cpu.c", "kernel.cu"):
        result = extract_statements(SourceFile(path, text))
        assert result.statements == [], path
        assert len(result.skipped) == 5
        assert lint_text(text, path) == []


def test_amd_gcn_and_other_isas_in_device_code_are_not_ptx() -> None:
    text = """
__device__ void cvt(unsigned a, float& t) {
  asm volatile("v_cvt_off_f32_i4 %[v_tmp], %[v_src]\\n"
               "v_cvt_pk_fp8_f32 %[v_tmp], %[v_tmp], %[v_tmp]\\n"
               : [v_tmp] "+v"(t) : [v_src] "v"(a));
  asm volatile("s_waitcnt lgkmcnt(0)" ::: "memory");
}
"""
    assert statements(text, "ck.hpp") == []
    other = 'static void f() { unsigned long m; __asm__ volatile("mova.x.m %[ms]\\n\\tmov.m.x m0, x0, 0xFF" : [ms] "=&r"(m)); }'
    assert statements(other, "et.c") == []
    riscv = (
        'void cp(char* s, char* d, long n) { __asm__ volatile("add t1, %[size], zero\\n\\t"'
        '"sub t1, t1, t0\\n\\t" "vle8.v v0, (%[s])\\n\\t" "bnez t1, loop%=\\n\\t"'
        ' : [s] "+r"(s), [d] "+r"(d) : [size] "r"(n) : "cc", "t0"); }'
    )
    assert statements(riscv, "rvv_kernels.cpp") == []


def test_asm_label_is_not_a_statement() -> None:
    text = 'extern int clock32(void) asm("clock");\n__device__ void f() { asm("trap;"); }\n'
    result = extract_statements(SourceFile("t.cu", text))
    assert len(result.statements) == 1
    assert "asm label" in result.skipped[0][1]


def test_operands_constraints_and_clobbers() -> None:
    text = (
        '__device__ void f(int* p, int a) { int d; asm volatile("atom.add.u32 %0, [%1], %2;"'
        ' : "=&r"(d) : "l"(p), [v] "r"(a + (1)) : "memory", "cc"); }'
    )
    (s,) = statements(text)
    d, p, a = s.operands
    assert (d.role, d.constraint.modifiers, d.constraint.letters) == ("output", "=&", "r")
    assert (p.index, p.role, p.expression) == (1, "input", "p")
    assert a.symbolic_name == "v" and a.expression == "a + (1)"
    assert text[a.expression_span.start : a.expression_span.end] == "a + (1)"
    assert [c.name for c in s.clobbers] == ["memory", "cc"]
    assert len(s.colons) == 3


def test_triple_colon_shorthand() -> None:
    (s,) = statements('__device__ void f() { asm volatile("bar.sync 0;" ::: "memory"); }')
    assert s.extended and [c.name for c in s.clobbers] == ["memory"] and len(s.colons) == 3


def test_guards_and_function_context() -> None:
    text = """
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
__device__ void a() { asm volatile("cp.async.wait_all;"); }
#else
__device__ void b() { asm volatile("membar.gl;"); }
#endif
"""
    s1, s2 = statements(text)
    assert s1.context.guards == ("defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800",)
    assert s2.context.guards == ("!(defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800)",)
    assert s1.context.function == "a" and "__device__" in s1.context.function_specifiers


def test_non_ascii_text_before_the_statement_keeps_positions() -> None:
    text = "// größe × π\n__device__ void f(int a) { int d; asm(\"add.u32 %0, %1, %n1;\" : \"=r\"(d) : \"r\"(a)); }\n"
    (finding,) = lint_text(text, select=("PTX007",))
    assert text[finding.span.start : finding.span.end] == "%n1"


def test_malformed_input_never_crashes() -> None:
    samples = [
        'asm(',
        'asm volatile("mov.u32 %0, %1;" : "=r"(x) : ',
        '__device__ void f() { asm("unterminated); }',
        'asm("x" : : : : : : );',
        '__asm__',
        '#define X asm(\n',
        'asm(R"abc(never closed',
        "\x00\x01asm(\"\\",
        'asm("{" MACRO(,) "}" : FOO(x) : BAR);',
    ]
    for text in samples:
        lint_text(text)


def test_operands_without_a_comma_are_two_operands_as_nvcc_reads_them() -> None:
    text = '__device__ void f(unsigned a, unsigned long b) { asm volatile("tcgen05.cp.cta_group::1.128x256b [%0], %1;" :: "r"(a)  "l"(b)); }'
    (s,) = statements(text)
    assert [(o.index, o.constraint.letters, o.expression) for o in s.operands] == [
        (0, "r", "a"),
        (1, "l", "b"),
    ]
    assert any("missing ','" in p for p in s.problems)


def test_pieces_know_their_template_ranges() -> None:
    # M is not defined in the file (it comes from a header ptxlint cannot see): a hole
    text = '__device__ void f(int x) { asm("mov.u32 %0, 1" M(y) "add.u32 %0, %0, 1;" : "+r"(x)); }'
    (s,) = statements(text)
    ranges = [(p.kind, s.template.text[p.text_start : p.text_end]) for p in s.template.pieces]
    assert ranges == [("string", "mov.u32 %0, 1"), ("macro", HOLE), ("string", "add.u32 %0, %0, 1;")]


def test_rocm_guarded_code_is_not_ptx_and_d_is_an_nvptx_letter() -> None:
    text = """
#if defined(USE_ROCM)
__device__ float f(float x) { float y; asm volatile("v_exp_f32 %0, %1" : "=v"(y) : "v"(x)); return y; }
#endif
__device__ double g(double x) { double y; asm("mov.f64 %0, %1;" : "=d"(y) : "d"(x)); return y; }
"""
    found = extract_statements(SourceFile("k.cu", text))
    assert [s.template.text for s in found.statements] == ["mov.f64 %0, %1;"]
    assert "HIP/ROCm" in found.skipped[0][1]


def test_arm_asm_with_if_inside_the_statement_is_not_ptx() -> None:
    text = """
static unsigned clz32(unsigned x) {
    unsigned int r;
    __asm__ __volatile__ (
    #if defined(MA_64BIT)
        "clz %w[out], %w[in]" : [out]"=r"(r) : [in]"r"(x)
    #else
        "clz %[out], %[in]" : [out]"=r"(r) : [in]"r"(x)
    #endif
    );
    return r;
}
"""
    assert statements(text, "miniaudio.h") == []


def test_an_expansions_empty_template_points_where_the_colon_after_its_paren_is() -> None:
    # the piece of an empty template sits one character past the "(": here the ":" spelled
    # in the macro's body, which the expansion's map knows (its template mapped on read)
    text = (
        '#define EMPTY(x) asm volatile(:"=r"(x))\n'
        "__device__ void f() { int a; EMPTY(a); }\n"
    )
    (s,) = statements(text)
    colon = text.index(":")
    assert [(p.span.start, p.span.end) for p in s.template.pieces] == [(colon, colon)]


def test_musa_guarded_device_assembly_is_not_ptx() -> None:
    # Mooncake's IBGDA doorbell: Moore Threads' device assembly under its compiler's guard, with
    # the MUSA constraint letter "R" that NVPTX has not (PTX002 would call it unknown)
    text = """
__device__ void ring(unsigned *dbr, unsigned v) {
#if defined(MOONCAKE_EP_USE_MUSA) && __MUSA_ARCH__ == 310
    asm volatile("LSU.ATOM_32.XCHG %0, %1, slc=byp;" : : "R"(dbr), "R"(v));
#else
    asm volatile("st.release.sys.global.u32 [%0], %1;" : : "l"(dbr), "r"(v) : "memory");
#endif
}
"""
    found = extract_statements(SourceFile("k.cuh", text))
    assert [s.template.text for s in found.statements] == ["st.release.sys.global.u32 [%0], %1;"]
    assert "MUSA" in found.skipped[0][1]


def test_another_gpus_assembly_in_device_code_is_not_ptx() -> None:
    # Kunlun XPU (InfiniCore's sort/kunlun/heap.h): no word of it PTX, a "v" letter and a
    # "vr0" clobber NVPTX has not; a PTX typo with NVPTX's letters is still read as PTX (PTX204)
    text = """
__device__ void cast(const float *x, int *y) {
    asm volatile("vfloat2fix.rz vr0, %0\\t\\n"
                 "vstore_mask16.mz vr0{mr1}, 0(%1)" :: "v"(x), "r"(y) : "vr0");
}
__device__ void typo(unsigned *d, unsigned a) {
    asm volatile("ad.u32 %0, %1, 1;" : "=r"(*d) : "r"(a));
}
__device__ void typo_with_clobber(unsigned *d, unsigned a) {
    asm volatile("ad.u32 %0, %1, 1;" : "=r"(*d) : "r"(a) : "memory");
}
"""
    found = extract_statements(SourceFile("heap.h", text))
    assert [s.template.text for s in found.statements] == ["ad.u32 %0, %1, 1;"] * 2
    assert "another GPU's assembly" in found.skipped[0][1]
