"""Statements with #if inside are read once per preprocessor branch."""

from __future__ import annotations

from pathlib import Path

from ptxlint.engine import extract_statements
from ptxlint.frontends.cxx import branches
from ptxlint.frontends.cxx.statement_tokens import code_tokens as _code_tokens
from ptxlint.model import SourceFile
from tests.conftest import lint_text


def _variants(text: str) -> list[tuple[str, tuple[str, ...]]]:
    stream = _code_tokens(text, text.index("asm"))
    return [(" ".join(t.text for t in v.tokens), v.conditions) for v in branches.split(stream)]


def test_if_elif_else_and_ifdef_without_else() -> None:
    text = 'asm("a"\n#if A\n"b"\n#elif B\n"c"\n#else\n"d"\n#endif\n);'
    assert _variants(text) == [
        ('asm ( "a" "b" )', ("A",)),
        ('asm ( "a" "c" )', ("!(A)", "B")),
        ('asm ( "a" "d" )', ("!(A)", "!(B)")),
    ]
    text = 'asm("a"\n#ifdef X\n"b"\n#endif\n);'
    assert _variants(text) == [
        ('asm ( "a" "b" )', ("defined(X)",)),
        ('asm ( "a" )', ("!(defined(X))",)),
    ]


def test_nested_blocks_combine_their_conditions() -> None:
    text = 'asm("a"\n#if A\n#if B\n"b"\n#endif\n#endif\n);'
    assert [c for _, c in _variants(text)] == [("A", "B"), ("A", "!(B)"), ("!(A)",)]


def test_one_condition_takes_one_branch_in_every_block_of_the_statement() -> None:
    # X in the first block and not X in the second is no build: the preprocessor reads one X
    text = 'asm("a"\n#ifdef X\n"b"\n#else\n"c"\n#endif\n"d"\n#ifdef X\n"e"\n#endif\n);'
    assert _variants(text) == [
        ('asm ( "a" "b" "d" "e" )', ("defined(X)", "defined(X)")),
        ('asm ( "a" "c" "d" )', ("!(defined(X))", "!(defined(X))")),
    ]
    # spelled three ways, still one condition
    text = 'asm("a"\n#ifndef X\n"b"\n#endif\n#if defined ( X )\n"e"\n#endif\n);'
    assert [t for t, _ in _variants(text)] == ['asm ( "a" "b" )', 'asm ( "a" "e" )']
    # different conditions, or ones that change from line to line, combine freely
    text = 'asm("a"\n#if A && B\n"b"\n#endif\n#if A\n"e"\n#endif\n);'
    assert len(_variants(text)) == 4
    text = 'asm("a"\n#if __LINE__ > 3\n"b"\n#endif\n#if __LINE__ > 3\n"e"\n#endif\n);'
    assert len(_variants(text)) == 4


def test_statement_that_closes_in_each_branch_is_read_to_the_endif() -> None:
    text = (
        'asm("add.u32 %0, %1, %2;" : "=r"(o) : "r"(a)\n#if X\n, "r"(b));\n#else\n);\n#endif\nint y;'
    )
    stream = _code_tokens(text, 0)
    assert stream[-1].kind == "directive" and "#endif" in stream[-1].text


def test_each_branch_is_a_statement_with_its_condition_in_the_guards() -> None:
    text = """
__device__ unsigned f(unsigned a) {
  unsigned out;
  asm("{\\n"
#if __CUDA_ARCH__ >= 800
      "redux.sync.add.u32 %0, %1, 0xffffffff;\\n"
#else
      "mov.b32 %0, %1;\\n"
#endif
      "}" : "=r"(out) : "r"(a));
  return out;
}
"""
    result = extract_statements(SourceFile("k.cu", text))
    by_guard = {s.context.branch: s.template.text for s in result.statements}
    assert by_guard == {
        ("__CUDA_ARCH__ >= 800",): "{\nredux.sync.add.u32 %0, %1, 0xffffffff;\n}",
        ("!(__CUDA_ARCH__ >= 800)",): "{\nmov.b32 %0, %1;\n}",
    }
    for s in result.statements:
        assert s.context.guards[-len(s.context.branch) :] == s.context.branch


def test_what_cannot_be_split_is_listed_with_its_reason(tmp_path: Path, capsys) -> None:
    from ptxlint.cli import main

    blocks = "".join(f'#ifdef F{i}\n"nop;"\n#endif\n' for i in range(6))
    (tmp_path / "k.cu").write_text(
        f'__device__ void f() {{\n  asm volatile(""\n{blocks});\n'
        '  asm volatile("nop;"\n#define X 1\n);\n}\n'
    )
    main(["stats", "--list-skipped", str(tmp_path)])
    out = capsys.readouterr().out
    assert "64 combinations of #if branches (over 16)" in out
    assert "#define inside the statement" in out


def test_branches_of_one_statement_are_one_dialect() -> None:
    # outside device code, one branch that is not PTX makes the whole statement not PTX
    text = """
static unsigned clz32(unsigned x) {
  unsigned r;
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
    result = extract_statements(SourceFile("miniaudio.h", text))
    assert result.statements == [] and len(result.skipped) == 1
    # every branch PTX through and through: linted even where the specifier is unknown
    text = """
UNKNOWN_DEVICE_MACRO void mma(unsigned t) {
  asm volatile("{\\n"
#if (__CUDACC_VER_MAJOR__ > 12)
    "tcgen05.commit.cta_group::1.mbarrier::arrive::one.b64 [%0];\\n"
#else
    "tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64 [%0];\\n"
#endif
    "}" :: "r"(t));
}
"""
    assert len(extract_statements(SourceFile("k.cuh", text)).statements) == 2


# Random bits that only the `#if USE_RS` template reads: an input of every branch, unused by one.
_RANDOM_BITS = """
__device__ unsigned short f(float a, float b, unsigned bits) {
  unsigned short out;
  asm volatile("{\\n"
#if defined(USE_RS)
      "cvt.rs.satfinite.e4m3x4.f32 %0, {%1, %2, %1, %2}, %3;\\n"
#else
      "cvt.rn.satfinite.e4m3x2.f32 %0, %2, %1;\\n"
#endif
      "}" : "=h"(out) : "f"(a), "f"(b), "r"(bits));
  return out;
}
"""


def test_each_branch_knows_the_operands_only_the_others_name() -> None:
    result = extract_statements(SourceFile("k.cu", _RANDOM_BITS))
    by_branch = {s.context.branch: s.context.branch_named for s in result.statements}
    assert by_branch == {("defined(USE_RS)",): frozenset(), ("!(defined(USE_RS))",): {3}}
    # branches that bind other operands: another branch's %3 is another operand
    text = """
__device__ unsigned short f(float a, float b, unsigned bits, unsigned spare) {
  unsigned short out;
  asm volatile(
#if defined(USE_RS)
      "cvt.rs.satfinite.e4m3x4.f32 %0, {%1, %2, %1, %2}, %3;" : "=h"(out)
      : "f"(a), "f"(b), "r"(bits)
#else
      "cvt.rn.satfinite.e4m3x2.f32 %0, %2, %1;" : "=h"(out) : "f"(a), "f"(b), "r"(spare)
#endif
  );
  return out;
}
"""
    result = extract_statements(SourceFile("k.cu", text))
    assert len(result.statements) == 2
    assert all(not s.context.branch_named for s in result.statements)
    found = lint_text(text, select=("PTX009",))
    assert [(f.rule, f.branch) for f in found] == [("PTX009", ("!(defined(USE_RS))",))]


def test_an_input_only_another_branch_reads_is_not_unused() -> None:
    assert lint_text(_RANDOM_BITS, select=("PTX009",)) == []
    # no branch reads it: a leftover in each build (one finding, said by every branch)
    text = _RANDOM_BITS.replace(
        "cvt.rs.satfinite.e4m3x4.f32 %0, {%1, %2, %1, %2}, %3;",
        "cvt.rn.satfinite.e4m3x2.f32 %0, %1, %2;",
    )
    found = lint_text(text, select=("PTX009",))
    assert [(f.rule, f.branch) for f in found] == [("PTX009", ())]
    # an output that one branch never writes: its variable is undefined in that build
    text = """
__device__ unsigned f(unsigned a) {
  unsigned out, flag;
  asm volatile("{\\n"
#if defined(WITH_FLAG)
      "mov.b32 %1, 1;\\n"
#endif
      "mov.b32 %0, %2;\\n"
      "}" : "=r"(out), "=r"(flag) : "r"(a));
  return out + flag;
}
"""
    found = lint_text(text, select=("PTX009",))
    assert [(f.rule, f.branch) for f in found] == [("PTX009", ("!(defined(WITH_FLAG))",))]


_EARLY_WRITE = """
__device__ void f(unsigned long long *p, unsigned long long &x, unsigned long long &y) {
  asm volatile("{\\n"
               "  mov.b64 %0, %3;\\n"
               "  mov.b64 %1, %4;\\n"
#if WITH_HINT
               "  ld.global.L2::128B.v2.u64 {%0, %1}, [%2];\\n"
#else
               "  ld.global.v2.u64 {%0, %1}, [%2];\\n"
#endif
               "}\\n"
               : "=l"(x), "=l"(y) : "l"(p), "l"(x), "l"(y) : "memory");
}
"""


def test_one_fix_that_mends_every_branch_is_one_finding() -> None:
    """Each branch's own load reads the address after the outputs are written: two places,
    one defect (the outputs' missing ``&``), one finding at the first branch's place, no
    branch note."""
    found = lint_text(_EARLY_WRITE, select=("PTX108",))
    assert [(f.rule, f.branch) for f in found] == [("PTX108", ())]
    assert found[0].span.start == _EARLY_WRITE.index("%2]", _EARLY_WRITE.index("L2::128B"))
    (edits,) = {f.fix.edits for f in found if f.fix is not None}
    assert len(edits) == 2


def test_branches_whose_fixes_differ_keep_their_findings() -> None:
    """A second defect: the ``#else`` branch also writes ``%1`` before the address is read,
    which only its own fix (a second ``&``) mends; each branch keeps its finding."""
    text = """
__device__ void f(unsigned long long *p, unsigned long long &x, unsigned long long &y) {
  asm volatile("{\\n"
               "  mov.b64 %0, %3;\\n"
#if WITH_HINT
               "  ld.global.L2::128B.u64 %1, [%2];\\n"
#else
               "  mov.b64 %1, %4;\\n"
               "  ld.global.u64 %1, [%2];\\n"
#endif
               "}\\n"
               : "=l"(x), "=l"(y) : "l"(p), "l"(x), "l"(y) : "memory");
}
"""
    found = lint_text(text, select=("PTX108",))
    assert [f.branch for f in found] == [("WITH_HINT",), ("!(WITH_HINT)",)]
    assert [len(f.fix.edits) for f in found if f.fix is not None] == [1, 2]


def test_branches_that_word_one_defect_differently_give_one_finding() -> None:
    # cvt.f32.bf16 (sm_80) stands outside the #if: the first branch admits sm_30-sm_62, the
    # second is compiled for sm_70. One instruction to guard, so one finding: the error.
    text = """
__device__ float f(const void* p) {
  float r;
  asm volatile("{ .reg .b16 t;"
#if __CUDA_ARCH__ < 700
      " ld.volatile.b16 t, [%1];"
#else
      " ld.relaxed.cta.b16 t, [%1];"
#endif
      " cvt.f32.bf16 %0, t; }" : "=f"(r) : "l"(p) : "memory");
  return r;
}
"""
    findings = [f for f in lint_text(text, select=("PTX401",)) if "cvt" in f.message]
    assert [(f.severity.value, f.branch) for f in findings] == [
        ("error", ("!(__CUDA_ARCH__ < 700)",))]
    # each branch's own instruction is its own defect, and keeps its finding
    text = text.replace("ld.volatile.b16", "ld.relaxed.gpu.b16")
    findings = lint_text(text, select=("PTX401",))
    assert sorted(f.message.split("'")[1] for f in findings) == [
        "cvt.f32.bf16", "ld.relaxed.gpu.b16"]
