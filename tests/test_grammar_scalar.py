"""The grammar of the scalar math, set/slct, cache-control, stack, control-flow, video and
cluster-launch families (ptxlint/ptx/grammar_data_scalar.py), the destinations that take a pair
or the sink, and the register an address is made of."""

from __future__ import annotations

import pytest

from ptxlint.cli import main
from ptxlint.ptx import grammar
from ptxlint.ptx.grammar_data_scalar import FAMILIES
from ptxlint.ptx.isa_table import FAMILIES as ISA_FAMILIES
from tests.conftest import lint_text
from tests.grammar_probe import judge, register_resolver

RESOLVE = register_resolver({"%rd": "b64", "%fd": "f64", "%r": "b32", "%h": "b16", "%f": "f32",
                             "%p": "pred", "%q": "b128"})


def status(text: str) -> str:
    return judge(text, RESOLVE).status


def test_every_family_of_the_module_is_covered_and_in_the_isa_table() -> None:
    assert set(ISA_FAMILIES) >= FAMILIES
    assert all(grammar.covered(family) for family in FAMILIES)
    missing, _ = grammar.undescribed()
    assert not FAMILIES & set(missing)


@pytest.mark.parametrize("text", [
    "rcp.approx.ftz.f32 %f1, %f2;",
    "rcp.rn.f64 %fd1, %fd2;",
    "rcp.approx.ftz.f64 %fd1, %fd2;",
    "sqrt.rn.ftz.f32 %f1, %f2;",
    "rsqrt.approx.f64 %fd1, %fd2;",
    "ex2.approx.f16x2 %r1, %r2;",
    "tanh.approx.bf16x2 %r1, %r2;",
    "testp.notanumber.f64 %p1, %fd1;",
    "set.lt.u32.f32 %r1, %f1, %f2;",
    "set.gt.and.ftz.f32.f32 %f3, %f1, %f2, %p1;",
    "slct.ftz.b32.f32 %r1, %r2, %r3, %f1;",
    "createpolicy.fractional.L2::evict_first.b64 %rd1, 1.0;",
    "createpolicy.fractional.L2::evict_last.L2::evict_unchanged.b64 %rd1;",
    "prefetch.global.L2::evict_last [%rd1];",
    "discard.global.L2 [%rd1], 128;",
    "bra.uni L1;",
    "exit;",
    "fns.b32 %r1, %r2, %r3, %r4;",
    "vadd2.u32.u32.u32.sat %r1, %r2, %r3, %r4;",
    "vset4.s32.s32.lt.add %r1, %r2, %r3, %r4;",
    "clusterlaunchcontrol.query_cancel.get_first_ctaid.v4.b32.b128 {%r1, _, _, _}, %q1;",
])
def test_documented_forms_are_accepted(text: str) -> None:
    assert status(text) == "ok", judge(text, RESOLVE).issues


@pytest.mark.parametrize(("text", "kind"), [
    ("rcp.f32 %f1, %f2;", "combination"),  # neither .approx nor a rounding
    ("rcp.approx.f64 %fd1, %fd2;", "combination"),  # only .approx.ftz for .f64
    ("sqrt.approx.f64 %fd1, %fd2;", "combination"),
    ("rsqrt.rn.f32 %f1, %f2;", "modifier"),
    ("sin.approx.f64 %fd1, %fd2;", "modifier"),  # no form of sin has .f64
    ("tanh.approx.f32 %f1, %f2, %f3;", "operand"),
    ("testp.finite.f32 %r1, %f1;", "type"),
    ("set.lo.s32.s32 %r1, %r2, %r3;", "combination"),  # .lo compares unsigned values
    ("set.lt.u32.f32 %f1, %r2, %r3;", "type"),  # .f32 sources in .b32 registers: fine; d no
    ("discard.global.L2 [%rd1], 64;", "operand"),
    ("bra.uni 4;", "operand"),
    ("createpolicy.fractional.b64 %rd1, 1.0;", "combination"),
])
def test_invalid_spellings_are_errors(text: str, kind: str) -> None:
    verdict = judge(text, RESOLVE)
    assert verdict.status == "error"
    assert verdict.issues[0].kind == kind


@pytest.mark.parametrize(("fraction", "expected"), [
    ("1.0", "ok"), ("0.5", "ok"), ("1e0", "ok"), ("0f3F800000", "ok"), ("0d3FF0000000000000", "ok"),
    ("%f1", "ok"),
    # ptxas 13.0: "value '1.500000' out of range, expected to be in range (0.000000 .. 1.000000]"
    ("1.5", "error"), ("0f3FC00000", "error"), ("0.0", "error"), ("-0.5", "error"),
    ("0f00000000", "error"),
])
def test_createpolicy_fraction_lies_in_the_half_open_unit_interval(fraction: str,
                                                                  expected: str) -> None:
    verdict = judge(f"createpolicy.fractional.L2::evict_last.b64 %rd1, {fraction};", RESOLVE)
    assert verdict.status == expected, verdict.issues
    if expected == "error":
        assert "range (0, 1]" in verdict.issues[0].message


@pytest.mark.parametrize(("text", "expected"), [
    ("setp.lt.s32 %p1|%p2, %r1, %r2;", "ok"),
    ("setp.lt.s32 _|%p2, %r1, %r2;", "ok"),
    ("setp.lt.s32 _, %r1, %r2;", "ok"),
    ("lop3.or.b32 %r1|%p1, %r2, %r3, %r4, 0x12, %p2;", "ok"),
    ("lop3.and.b32 _|%p1, %r2, %r3, %r4, 0x12, !%p2;", "ok"),
    ("lop3.or.b32 %r1, %r2, %r3, %r4, 0x12, %p2;", "error"),  # "Predicate output expected"
    ("lop3.xor.b32 %r1|%p1, %r2, %r3, %r4, 0x12, %p2;", "error"),
    ("lop3.b32 _, %r2, %r3, %r4, 0x12;", "ok"),
    ("atom.global.add.u32 _, [%rd1], %r1;", "ok"),
    ("atom.global.v2.f32.add _, [%rd1], {%f1, %f2};", "ok"),
    ("add.s32 _, %r1, %r2;", "error"),
    ("st.global.v8.f32 [%rd1], {%f1, _, %f2, %f3, %f4, %f5, %f6, _};", "ok"),
    ("st.global.v4.b64 [%rd1], {%rd1, _, %rd2, %rd3};", "ok"),
    ("st.global.v4.b32 [%rd1], {%r1, _, %r2, %r3};", "error"),  # a 128-bit store: no sink
    # both halves the sink: "Parsing error near '_': syntax error", whatever the instruction
    ("setp.lt.s32 _|_, %r1, %r2;", "error"),
    ("lop3.and.b32 _|_, %r2, %r3, %r4, 0x12, %p2;", "error"),
    ("elect.sync _|_, 0xffffffff;", "error"),
    ("shfl.sync.idx.b32 _|_, %r1, 0, 0x1f, 0xffffffff;", "error"),
    ("match.all.sync.b32 _|_, %r1, 0xffffffff;", "error"),
    # the predicate half of elect and lop3 is written: "Predicate output expected"; setp's,
    # shfl's and match.all's may be the sink
    ("elect.sync %r1|_, 0xffffffff;", "error"),
    ("lop3.or.b32 %r1|_, %r2, %r3, %r4, 0x12, %p2;", "error"),
    ("elect.sync _|%p1, 0xffffffff;", "ok"),
    ("setp.lt.s32 %p1|_, %r1, %r2;", "ok"),
    ("shfl.sync.idx.b32 %r1|_, %r1, 0, 0x1f, 0xffffffff;", "ok"),
    ("match.all.sync.b32 %r1|_, %r1, 0xffffffff;", "ok"),
    # a vector of sinks only: "Unable to infer type of vector elements (assuming .b8)"
    ("ld.global.v2.u32 {_, _}, [%rd1];", "error"),
    ("st.global.v4.b64 [%rd1], {_, _, _, _};", "error"),
    ("clusterlaunchcontrol.query_cancel.get_first_ctaid.v4.b32.b128 {_, _, _, _}, %q1;",
     "error"),
    ("ld.global.v2.u32 {_, %r1}, [%rd1];", "ok"),
    ("clusterlaunchcontrol.query_cancel.get_first_ctaid.v4.b32.b128 {%r1, _, _, _}, %q1;", "ok"),
])
def test_pair_and_sink_destinations_follow_ptxas(text: str, expected: str) -> None:
    assert status(text) == expected


@pytest.mark.parametrize(("text", "expected"), [
    ("ld.global.b32 %r1, [%r2];", "32-bit"),
    ("ld.b32 %r1, [%r2+4];", "32-bit"),
    ("st.b32 [%r2], %r1;", "32-bit"),
    ("atom.global.add.u32 %r1, [%r2], 1;", "32-bit"),
    ("mbarrier.arrive.b64 %rd1, [%r1];", "32-bit"),
    ("prefetch.L1 [%r1];", "32-bit"),
    ("ld.global.b32 %r1, [%f2];", "integer or bit"),
    ("ld.shared.b32 %r1, [%fd2];", "integer or bit"),
    ("ld.shared.b32 %r1, [%r2];", ""),  # a shared-window offset: 32 bits are right
    ("ld.local.b32 %r1, [%r2];", ""),
    ("mbarrier.init.shared.b64 [%r1], 1;", ""),
    ("cp.async.ca.shared.global [%r1], [%r2], 4;", ""),  # ptxas takes a 32-bit global source
    ("ld.global.b32 %r1, [%h2];", ""),  # ptxas only warns about a 16-bit address
    ("ld.global.b32 %r1, [%rd2];", ""),
    ("st.bulk.weak [%r1], 64, 0;", ""),  # ptxas takes a 32-bit st.bulk address (ThunderKittens)
    ("red.async.release.gpu.global.add.u32 [%r1], %r2;", ""),
    ("ld.global.nc.v8.f32 {%f1, %f2, %f3, %f4, %f5, %f6, %f7, %f8}, [%r1];", "32-bit"),
])
def test_address_registers_of_the_wrong_class_or_width(text: str, expected: str) -> None:
    verdict = judge(text, RESOLVE)
    if not expected:
        assert verdict.status == "ok", verdict.issues
        return
    [issue] = verdict.issues
    assert issue.kind == "type" and expected in issue.message


ADDRESSES = """\
__device__ unsigned by_value(unsigned addr) {
  unsigned v;
  asm volatile("ld.global.u32 %0, [%1];" : "=r"(v) : "r"(addr));
  return v;
}
__device__ unsigned by_pointer(const unsigned* p) {
  unsigned v;
  asm volatile("ld.global.u32 %0, [%1];" : "=r"(v) : "r"(p));
  return v;
}
__device__ unsigned by_float(float a) {
  unsigned v;
  asm volatile("ld.shared.u32 %0, [%1];" : "=r"(v) : "f"(a));
  return v;
}
__device__ void shared_as_generic(int* p) {
  unsigned v;
  asm volatile("ld.u32 %0, [%1];" : "=r"(v) : "r"((unsigned)__cvta_generic_to_shared(p)));
}
__global__ void through_a_local(float* out) {
  __shared__ float tile[64];
  unsigned a = static_cast<unsigned>(__cvta_generic_to_shared(tile));
  float v;
  asm volatile("ld.global.f32 %0, [%1];" : "=f"(v) : "r"(a));
  out[0] = v;
}
"""


def test_address_register_defects_are_reported_once_each() -> None:
    findings = lint_text(ADDRESSES, select=("PTX004", "PTX206", "PTX301"))
    by_line = {(ADDRESSES.count("\n", 0, f.span.start) + 1, f.rule) for f in findings}
    assert (3, "PTX206") in by_line  # "r"(unsigned) as a .global address
    assert (8, "PTX004") in by_line and (8, "PTX206") not in by_line  # the pointer: PTX004's
    assert (13, "PTX206") in by_line  # a float register as an address
    assert (18, "PTX301") in by_line and (18, "PTX206") not in by_line  # PTX301's defect
    # a shared offset PTX301 follows through a local: its finding, not PTX206's as well
    assert (24, "PTX301") in by_line and (24, "PTX206") not in by_line


def test_stats_lists_the_families_the_grammar_does_not_describe(tmp_path, capsys) -> None:
    (tmp_path / "k.cu").write_text("__global__ void k() {}\n")
    assert main(["stats", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    missing, partial = grammar.undescribed()
    assert f"PTX families without a form grammar (not judged): {len(missing)}" in out
    assert all(op in out for op in missing)
    assert all(f"  {op}:" in out for op in partial)
    assert "rcp" not in missing and "txq" in missing


@pytest.mark.parametrize(("text", "expected"), [
    ("setp.eq.f16x2 %p1|%p2, %r1, %r2;", "ok"),
    ("setp.eq.f16x2 _|%p2, %r1, %r2;", "ok"),
    ("setp.lt.ftz.and.f16 %p1, %h1, %h2, %p3;", "ok"),
    ("setp.eq.bf16x2 %p1|%p2, %r1, %r2;", "ok"),
    ("setp.eq.f16 %p1|%p2, %h1, %h2;", "error"),  # "Predicate output not allowed"
    ("setp.eq.ftz.bf16 %p1, %h1, %h2;", "error"),
    ("setp.eq.f16 %p1, %h1, 1;", "error"),  # registers only
    ("setp.eq.and.bf16 %p1, %h1, %h2, 1;", "error"),
])
def test_half_precision_setp(text: str, expected: str) -> None:
    assert status(text) == expected
