"""ld and st of the half-precision and fp8 types (ptxlint/ptx/grammar_data.py): the ISA lists
no .f16, .f16x2, .bf16, .bf16x2 (nor, for ld, .e4m3/.e5m2) among ld's and st's types, and
ptxas 12.4, 13.0, 13.1 and 13.2 reject them on every target ("Unexpected instruction types
specified for 'ld'"); the bit types of their size are the spelling. Each case is assembled with
ptxas (the benchmark's oracle, verdicts cached) where it is installed."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from tests.benchmark_module import load
from tests.conftest import lint_text

ROOT = Path(__file__).resolve().parent.parent
agreement = load("ptxas_agreement")

# (the half or fp8 spelling, the bit spelling ptxas takes); %h a .b16 register, %r .b32, %c .b8
PAIRS = [
    ("ld.global.f16 %h0, [%rd0]", "ld.global.b16 %h0, [%rd0]"),
    ("ld.global.bf16 %h0, [%rd0]", "ld.global.b16 %h0, [%rd0]"),
    ("ld.shared.f16x2 %r0, [%r1]", "ld.shared.b32 %r0, [%r1]"),
    ("ld.global.nc.bf16x2 %r0, [%rd0]", "ld.global.nc.b32 %r0, [%rd0]"),
    ("ld.global.v2.f16 {%h0, %h1}, [%rd0]", "ld.global.v2.b16 {%h0, %h1}, [%rd0]"),
    ("ld.global.v4.bf16 {%h0, %h1, %h2, %h3}, [%rd0]",
     "ld.global.v4.b16 {%h0, %h1, %h2, %h3}, [%rd0]"),
    ("ld.global.v4.f16x2 {%r0, %r1, %r2, %r3}, [%rd0]",
     "ld.global.v4.b32 {%r0, %r1, %r2, %r3}, [%rd0]"),
    ("ld.relaxed.gpu.global.f16 %h0, [%rd0]", "ld.relaxed.gpu.global.b16 %h0, [%rd0]"),
    ("ld.volatile.shared.bf16 %h0, [%r0]", "ld.volatile.shared.b16 %h0, [%r0]"),
    ("ld.global.L1::evict_last.f16 %h0, [%rd0]", "ld.global.L1::evict_last.b16 %h0, [%rd0]"),
    ("ld.global.e4m3 %c0, [%rd0]", "ld.global.b8 %c0, [%rd0]"),
    ("ld.global.e5m2 %c0, [%rd0]", "ld.global.b8 %c0, [%rd0]"),
    ("st.global.f16 [%rd0], %h0", "st.global.b16 [%rd0], %h0"),
    ("st.global.bf16 [%rd0], %h0", "st.global.b16 [%rd0], %h0"),
    ("st.shared.f16x2 [%r1], %r0", "st.shared.b32 [%r1], %r0"),
    ("st.global.v2.bf16x2 [%rd0], {%r0, %r1}", "st.global.v2.b32 [%rd0], {%r0, %r1}"),
    ("st.release.gpu.global.bf16 [%rd0], %h0", "st.release.gpu.global.b16 [%rd0], %h0"),
    ("st.global.v4.f16 [%rd0], {%h0, %h1, %h2, %h3}",
     "st.global.v4.b16 [%rd0], {%h0, %h1, %h2, %h3}"),
]
HALVES = [half for half, _ in PAIRS]
BITS = sorted({bits for _, bits in PAIRS})


@pytest.mark.parametrize("text", HALVES)
def test_half_and_fp8_types_are_rejected(text: str) -> None:
    prediction = agreement.predict(text)
    assert prediction.status == "reject" and "unknown modifier" in prediction.reason, prediction


@pytest.mark.parametrize("text", BITS)
def test_the_bit_types_of_their_size_are_accepted(text: str) -> None:
    assert agreement.predict(text).status == "accept"


def test_ld_and_st_have_no_undescribed_types() -> None:
    from ptxlint.ptx.grammar_data import PARTIAL

    for op in ("ld", "st"):
        assert not PARTIAL[op] & {"f16", "f16x2", "bf16", "bf16x2", "e4m3", "e5m2"}


def test_a_half_load_in_cxx_is_reported() -> None:
    source = ('__device__ void f(const void *p, unsigned short &v) {\n'
              '  asm volatile("ld.global.f16 %0, [%1];" : "=h"(v) : "l"(p));\n}\n')
    assert [f.rule for f in lint_text(source, select=("PTX204",))] == ["PTX204"]
    fixed = source.replace(".f16", ".b16")
    assert not lint_text(fixed, select=("PTX204", "PTX206", "PTX207"))


@pytest.mark.skipif(agreement.PTXAS is None, reason="ptxas (CUDA toolkit) not found")
def test_agreement_with_ptxas() -> None:
    Case = agreement.Case
    cases = [Case(t, t.split(".")[0], "valid", "ld/st bits") for t in BITS]
    cases += [Case(t, t.split(".")[0], "other-type", "ld/st halves") for t in HALVES]
    rows = agreement.evaluate(cases, agreement.Oracle())
    out = io.StringIO()
    summary = agreement.summarize(rows, out)
    assert summary["false_alarms"] == 0 and summary["misses"] == 0, out.getvalue()
    assert all(r.ptxas == "reject" for r in rows if r.case.text in HALVES), out.getvalue()
