"""Special registers as operands (ptxlint/ptx/effects.py's table, read by the judge): a ``mov``
of one must have its type (``mov.u32 d, %clock64``: "Arguments mismatch"), only ``mov`` and
``cvt`` take one as an operand of their own ("Special register argument not allowed for
instruction 'add'"), and a guard ``@p`` must be a predicate ("Predicate expression
expected"). Each case is assembled with ptxas (the benchmark's oracle, verdicts cached) where
it is installed."""

from __future__ import annotations

import io

import pytest

from tests.benchmark_module import load
from tests.conftest import lint_text

agreement = load("ptxas_agreement")

VALID = [
    "mov.u32 %r0, %laneid",
    "mov.b32 %r0, %laneid",
    "mov.s32 %r0, %warpid",
    "mov.u32 %r0, %clock",
    "mov.u64 %rd0, %clock64",
    "mov.b64 %rd0, %clock64",
    "mov.s64 %rd0, %clock64",
    "mov.u64 %rd0, %globaltimer",
    "mov.u32 %r0, %globaltimer_lo",
    "mov.u32 %r0, %tid.x",
    "mov.u16 %h0, %tid.x",  # legacy 16-bit reads of %tid, %ntid, %ctaid, %nctaid
    "mov.u16 %h0, %nctaid.y",
    "mov.u32 %r0, %gridid",  # a .u64 that ptxas also moves into 32 bits
    "mov.u64 %rd0, %gridid",
    "mov.u32 %r0, %clusterid.x",
    "mov.u32 %r0, %cluster_ctarank",
    "mov.u32 %r0, %lanemask_lt",
    "mov.u32 %r0, %dynamic_smem_size",
    "mov.u32 %r0, %envreg3",
    "mov.u64 %rd0, %pm1_64",
    "mov.pred %p0, %is_explicit_cluster",
    "cvt.u32.u64 %r0, %clock64",
    "cvt.u64.u32 %rd0, %laneid",
    "cvt.u16.u32 %h0, %laneid",
    "cvt.u32.u16 %r0, %tid.x",
    "cvt.sat.u16.u32 %h0, %laneid",
    "st.global.v2.u32 [%rd0], {%laneid, %r1}",  # a vector element is no operand of its own
    "@%p0 mov.u32 %r0, 1",
    "@!%p0 add.u32 %r0, %r1, 1",
]

# ptxas 13.0's message in the comment
MUTANTS = [
    "mov.u64 %rd0, %tid.x",
    "mov.u32 %r0, %clock64",  # Arguments mismatch for instruction 'mov'
    "mov.u64 %rd0, %clock",
    "mov.u64 %rd0, %laneid",
    "mov.b32 %r0, %globaltimer",
    "mov.u16 %h0, %warpid",
    "mov.u64 %rd0, %clusterid.x",
    "mov.u32 %r0, %pm0_64",
    "mov.u32 %r0, %current_graph_exec",
    "mov.u32 %r0, %is_explicit_cluster",
    "mov.f32 %f0, %laneid",  # Special register argument not allowed for instruction 'mov'
    "add.u32 %r0, %clock, 1",  # Special register argument not allowed for instruction 'add'
    "popc.b32 %r0, %lanemask_lt",
    "setp.eq.u32 %p0, %laneid, 0",
    "shfl.sync.idx.b32 %r0, %laneid, 0, 31, -1",
    "mad.lo.u32 %r0, %tid.x, %ntid.x, %r1",
    "st.global.u32 [%rd0], %laneid",
    "@%r1 mov.u32 %r0, 1",  # Predicate expression expected
    "@%rd1 add.u32 %r0, %r1, 1",
    "cvt.rn.f32.u32 %f0, %laneid",  # Special register argument not allowed for instruction 'cvt'
    "cvt.rn.f64.u32 %fd0, %laneid",
    "cvt.rn.f32.u64 %f0, %clock64",
    "cvt.rzi.u32.f32 %r0, %laneid",
]

@pytest.mark.parametrize("text", VALID)
def test_valid_reads_are_accepted(text: str) -> None:
    prediction = agreement.predict(text)
    assert prediction.status == "accept", prediction.reason


@pytest.mark.parametrize("text", MUTANTS)
def test_mutants_are_rejected(text: str) -> None:
    prediction = agreement.predict(text)
    assert prediction.status == "reject", text


@pytest.mark.skipif(agreement.PTXAS is None, reason="ptxas (CUDA toolkit) not found")
def test_agreement_with_ptxas() -> None:
    Case = agreement.Case
    cases = [Case(t, "sreg", "valid", "special registers") for t in VALID]
    cases += [Case(t, "sreg", "mutant", "special registers") for t in MUTANTS]
    rows = agreement.evaluate(cases, agreement.Oracle())
    out = io.StringIO()
    agreement.summarize(rows, out)
    assert not [r for r in rows if r.ptxlint == "reject" and r.ptxas == "accept"], out.getvalue()
    for row in rows:
        if row.case.kind == "valid":  # wherever the target has the register
            assert row.ptxas == "accept" or "requires .target" in row.ptxas_message, row
        elif row.case.text in MUTANTS:
            assert row.ptxas == "reject" and row.ptxlint == "reject", row


def test_the_rules_that_report_them() -> None:
    """A mov of the wrong size and a guard of no predicate are operand types (PTX206, which
    names the asm operand behind a `%N` guard); a special register where the instruction takes
    none is an operand the form rejects (PTX207)."""
    text = """__device__ unsigned f(unsigned r, unsigned c) {
  unsigned long long t;
  asm volatile("mov.u32 %0, %%clock64;" : "=r"(r));
  asm volatile("popc.b32 %0, %%lanemask_lt;" : "=r"(r));
  asm volatile("@%1 add.u32 %0, %0, 1;" : "+r"(r) : "r"(c));
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  asm volatile("{.reg .pred p; setp.ne.u32 p, %1, 0; @p add.u32 %0, %0, 1;}" : "+r"(r) : "r"(c));
  return r + (unsigned)t;
}
"""
    found = lint_text(text, select=("PTX204", "PTX206", "PTX207"))
    lines = [text.count("\n", 0, f.span.start) + 1 for f in found]
    assert [(f.rule, line) for f, line in zip(found, lines, strict=True)] == [
        ("PTX206", 3), ("PTX207", 4), ("PTX206", 5)]
    assert "'%1' is operand 1 with constraint 'r'" in found[2].message
    assert "guard of 'add.u32' must be a .pred register" in found[2].message
