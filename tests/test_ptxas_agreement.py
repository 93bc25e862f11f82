"""A sample of benchmarks/ptxas_agreement.py: the instruction grammar against ptxas 13.0.

Every 50th generated case (valid forms and mutants of every covered family) is assembled for
the benchmark's ten targets; ptxlint must agree with ptxas wherever it speaks. The full matrix
(about 700,000 verdicts) runs from the benchmark script. Verdicts are cached by content hash.
"""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from tests.benchmark_module import load
from tests.toolchain_cache import PTXAS

ROOT = Path(__file__).resolve().parent.parent
agreement = load("ptxas_agreement")


def test_generation_covers_every_family_with_valid_forms_and_mutants() -> None:
    cases = agreement.generate()
    families = {c.family for c in cases}
    kinds = {c.kind for c in cases}
    assert families == {f.opcode for f in agreement.grammar.forms()}
    assert {"valid", "drop-modifier", "sibling-modifier", "other-type", "other-immediate",
            "inner-immediate",
            "register-as-immediate", "literal-class",
            "operand-less", "operand-more", "register-class", "other-space", "c-cast",
            "missing-comma", "not-ptx-opcode"} <= kinds
    # every sixth case: 143,000 cases with PTX ISA 9.3-9.5 (mutants of their long forms take
    # the grammar's nearest-form search, 5-15 ms each) would cost CI six minutes
    sample = cases[::6]
    abstained = [c for c in sample if agreement.predict(c.text).status == "abstain"]
    assert len(abstained) < 0.02 * len(sample)


def test_typed_generation_puts_typed_registers_in_scalars_and_vectors() -> None:
    cases = agreement.generate({"mma", "cvt"}, typed=True)
    assert {c.kind for c in cases} == {"typed-register", "typed-vector", "typed-element",
                                       "typed-mix"}
    assert "valid" not in {c.kind for c in cases}  # the plain run's, not asked again
    # each typed register resolves to its declared type ('%hx' is .f16x2, '%h' .b16)
    [instruction] = agreement.parse_template("add.f16x2 %hx1, %us2, %u3;",
                                             extended=False).instructions
    assert [agreement.resolve(o).type for o in instruction.operands] == ["f16x2", "u16", "u32"]
    oracle = agreement.Oracle(agreement.TYPED_DECLARATIONS.strip())
    assert oracle.key("sm_90a", "x") != agreement.Oracle().key("sm_90a", "x")


def test_the_issue_examples_are_predicted() -> None:
    predict = agreement.predict
    assert "expected 16" in predict("cp.async.cg.shared.global [%rd1], [%rd2], 4").reason
    assert predict("cp.async.ca.shared.global [%rd1], [%rd2], 4").status == "accept"
    assert predict("cp.async.wait_group (int64_t)2").status == "reject"
    assert predict("_mma.sync.aligned.m8n8k4.row.col.f32.f16.f16.f32 {%f1}, {%r1}, {%r1}, {%f1}"
                   ).status == "reject"
    assert predict("add.sat.u32 %r1, %r2, %r3").status == "reject"
    mma = predict("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%f1, %f2, %f3, %f4}, "
                  "{%r1, %r2, %r3, %r4}, {%r5, %r6}, {%f1, %f2, %f3, %f4}")
    assert mma.status == "accept" and mma.need.sm == 80
    assert agreement.predicted(mma, 75, "") == "reject"


@pytest.mark.skipif(PTXAS is None, reason="ptxas (CUDA toolkit) not found")
def test_sampled_agreement_with_ptxas() -> None:
    # the tensor-core families have thousands of long, mostly rejected mutants (each rejected
    # line costs ptxas a re-run): they are sampled thinner to keep a cold run near a minute
    thin = {"wgmma", "tcgen05", "mma"}
    cases = [c for i, c in enumerate(agreement.generate())
             if i % (200 if c.family in thin else 50) == 0]
    rows = agreement.evaluate(cases, agreement.Oracle())
    out = io.StringIO()
    summary = agreement.summarize(rows, out)
    assert summary["false_alarms"] == 0, out.getvalue()
    assert summary["misses"] == 0, out.getvalue()
    assert summary["verdicts"] + summary["crashed"] == len(agreement.TARGETS) * len(cases)


isa_versions = load("ptxas_isa_versions")


@pytest.mark.skipif(PTXAS is None, reason="ptxas (CUDA toolkit) not found")
def test_sampled_isa_versions_agree_with_ptxas() -> None:
    """Every 25th valid case, and the TMA scatter4 forms (CCCL guarded one with PTX ISA 8.0):
    the PTX ISA version ptx_requirement gives (what PTX403 compares with the guards' oldest
    toolkit) is the one ptxas 13.0 asks, and the case assembles under it. Verdicts are cached
    by content hash like the agreement's (benchmarks/ptxas_isa_versions.py runs them all)."""
    cases = [(c, t) for i, (c, t) in enumerate(isa_versions.valid_cases())
             if i % 25 == 0 or "scatter4" in c.text]
    measures = isa_versions.measure(cases, isa_versions.LineOracle())
    out = io.StringIO()
    summary = isa_versions.summarize(measures, out)
    assert summary["too_low"] == summary["unsettled"] == summary["failing"] == 0, out.getvalue()
    too_high = [m for m in measures if m.verdict == "too high"]
    if isa_versions.older_ptxas() is None:  # what only CUDA 12.4's ptxas can judge is skipped
        too_high = [m for m in too_high if not isa_versions.askable(m)]
    assert too_high == [], out.getvalue()
    scatter = [m for m in measures if "tile::scatter4" in m.text]
    assert scatter and all(m.ptxas == m.predicted == 86 for m in scatter)
    assert summary["measured"] > 500


def test_an_addressing_error_on_a_line_without_an_address_is_judged_again() -> None:
    # a cold run's batch once drew "Illegal Addressing Mode in instruction 'setp'" onto a setp of
    # registers that assembles alone on every target: taken as placed, it read as a miss
    message = "Illegal Addressing Mode in instruction 'setp'"
    assert not agreement._trusted("setp.hi.xor.u16 %p1, %h2, %h3, %p4", message)
    assert agreement._trusted("ld.global.u32 %r1, [%r2]",
                              "Illegal Addressing Mode in instruction 'ld'")


def test_a_modifier_error_naming_a_word_the_line_does_not_spell_is_judged_again() -> None:
    # a cold run's batch with texture instructions drew "Illegal modifier 'dimension'" onto 18
    # setp lines that assemble alone: ptxas named its own word for another line's geometry
    message = "Illegal modifier 'dimension' for instruction 'setp'"
    assert not agreement._trusted("setp.geu.and.f32 %p1, %f2, %f3, %p4", message)
    assert agreement._trusted("tex.1d.v4.s32.f32 {%r1, %r2, %r3, %r4}, [%rd1, {%f1}]",
                              "Illegal modifier '.v4' for instruction 'tex'")
