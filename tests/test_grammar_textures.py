"""The texture fetches (ptxlint/ptx/grammar_data.py, "textures"): tex on .1d/.2d/.3d textures
and tld4 on .2d ones, their results, coordinates, sampler, offsets and depth compare value as
the PTX ISA writes them, and the shapes ptxas 13.0 also takes (undocumented: a warning at
most). The mipmap modes and the array, cube and multisample geometries are not written down
(PARTIAL): not judged. Each case is assembled with ptxas (the benchmark's oracle, verdicts
cached) where it is installed."""

from __future__ import annotations

import io

import pytest

from ptxlint.ptx import grammar
from ptxlint.ptx.parser import parse_template
from tests.benchmark_module import load
from tests.conftest import lint_text

agreement = load("ptxas_agreement")

VALID = [
    "tex.1d.v4.s32.f32 {%r0, %r1, %r2, %r3}, [%rd0, %f0]",  # a scalar coordinate for .1d
    "tex.1d.v4.f32.s32 {%f0, %f1, %f2, %f3}, [%rd0, {%r0}]",
    "tex.2d.v4.f32.f32 {%f0, %f1, %f2, %f3}, [%rd0, {%f4, %f5}]",
    "tex.2d.v4.f32.f32 {%f0, %f1, %f2, %f3}, [%rd0, %rd1, {%f4, %f5}]",  # a sampler
    "tex.3d.v4.u32.f32 {%r0, %r1, %r2, %r3}, [%rd0, {%f4, %f5, %f6, %f7}]",
    "tex.2d.v2.f16x2.f32 {%r0, %r1}, [%rd0, {%f4, %f5}]",
    "tex.2d.v4.f16.f32 {%h0, %h1, %h2, %h3}, [%rd0, {%f4, %f5}]",
    "tex.2d.v4.f32.f32 {%f0, %f1, %f2, %f3}|%p0, [%rd0, {%f4, %f5}]",  # residency
    "tex.2d.v4.f32.f32 {%f0, %f1, %f2, %f3}, [%rd0, {%f4, %f5}], {%r0, %r1}",  # offsets
    "tex.2d.v4.f32.f32 {%f0, %f1, %f2, %f3}, [%rd0, {%f4, %f5}], {%r0, %r1}, %f6",  # depth
    "tex.1d.v4.f32.f32 {%f0, %f1, %f2, %f3}, [%rd0, {%f10}], %f30",
    "tex.3d.v4.s32.s32 {%r0, %r1, %r2, %r3}|%p1, [%rd0, %rd1, {%r10, %r11, %r12, %r13}], "
    "{%r20, %r21, %r22, %r23}",
    "tex.2d.v4.f32.f32 {%r0, %r1, %r2, %r3}, [%rd0, {%r10, %r11}]",  # .b32 registers
    "tex.2d.v4.f32.f32 {%f0, %f1, %f2, _}, [%rd0, {0f3F800000, %f11}], {-1, 7}",
    "tld4.r.2d.v4.f32.f32 {%f0, %f1, %f2, %f3}, [%rd0, {%f4, %f5}]",
    "tld4.g.2d.v4.s32.f32 {%r0, %r1, %r2, %r3}|%p1, [%rd0, %rd1, {%f10, %f11}], {%r20, %r21}, "
    "%f5",
    "tld4.2d.b.v4.u32.f32 {%r0, %r1, %r2, %r3}, [%rd0, {%f10, %f11}], %f5",  # any order
]

# ptxas 13.0 takes these, the ISA does not document them: a warning at most
UNDOCUMENTED = [
    "tex.1d.v4.f32.f32 {%f0, %f1, %f2, %f3}, [%rd0, {%f10, %f11, %f12, %f13}]",
    "tex.2d.v4.f32.f32 {%f0, %f1, %f2, %f3}, [%rd0, %f10]",  # a scalar for a vector
    "tex.2d.v4.f32.f32 {%f0, %f1, %f2, %f3}, [%rd0, {%f10, %f11, %f12, %f13}]",
    "tex.1d.v4.f32.f32 {%f0, %f1, %f2, %f3}, [%rd0, {%f10}], {%r20, %r21}",
    "tex.2d.v4.f32.f32 {%f0, %f1, %f2, %f3}, [%rd0, {%f10, %f11}], %r20, %f5",
    "tex.2d.v4.f32.s32 {%f0, %f1, %f2, %f3}, [%rd0, {%r10, %r11}], %r30",
    "tex.3d.v4.f32.f32 {%f0, %f1, %f2, %f3}, [%rd0, %rd1, {%f0, %f1, %f2, %f3}], {%r8}",
    "tld4.r.2d.v4.f32.f32 {%f0, %f1, %f2, %f3}, [%rd0, {%f10, %f11}], {%r20, %r21, %r22, %r23}",
]

# ptxas 13.0's message in the comment
MUTANTS = [
    "tex.3d.v4.f32.f32 {%f0, %f1, %f2, %f3}, [%rd0, {%f4, %f5, %f6}]",  # Illegal vector size: 3
    "tex.2d.v4.f32.f32 {%f0, %f1, %f2, %f3}, [%rd0, {%f10}]",  # doesn't match geometry
    "tex.2d.v4.f32.f32 {%f0, %f1, %f2, %f3}, [%rd0, {%f10, %f11}], {%r20}",
    "tex.3d.v4.f32.f32 {%f0, %f1, %f2, %f3}, [%rd0, {%f10, %f11}]",
    "tex.3d.v4.f32.f32 {%f0, %f1, %f2, %f3}, [%rd0, {%f10, %f11, %f12, %f13}], %f30",  # '.3d'
    "tex.2d.v4.f32.f32 {%f0, %f1, %f2, %f3}, [%rd0, %rd1, %f10]",  # Parsing error
    "tex.2d.v4.u32.f32 {%f0, %f1, %f2, %f3}, [%rd0, {%f10, %f11}]",  # Arguments mismatch
    "tex.2d.v4.f16.f32 {%r0, %r1, %r2, %r3}, [%rd0, {%f10, %f11}]",
    "tex.2d.v4.f32.s32 {%f0, %f1, %f2, %f3}, [%rd0, {%f10, %f11}]",
    "tex.2d.v4.f32.f32 {%f0, %f1, %f2, %f3}, [%rd0, {%f10, %f11}], {%f20, %f21}",
    "tex.2d.v4.f32.f32 {%f0, %f1, %f2, %f3}|%r1, [%rd0, {%f10, %f11}]",  # Predicate expected
    "tex.2d.v4.f32.f32 {%f0, %f1, %f2}, [%rd0, {%f10, %f11}]",  # Illegal vector size: 3
    "tex.2d.v4.f32.f32 %f0, [%rd0, {%f10, %f11}]",  # Result vector expected
    "tex.2d.f32.f32 {%f0, %f1, %f2, %f3}, [%rd0, {%f4, %f5}]",  # requires .v4 type
    "tex.2d.v2.f32.f32 {%f0, %f1}, [%rd0, {%f10, %f11}]",
    "tex.2d.v4.f16x2.f32 {%r0, %r1, %r2, %r3}, [%rd0, {%f10, %f11}]",  # requires .v2 type
    "tex.2d.v4.f32 {%f0, %f1, %f2, %f3}, [%rd0, {%f4, %f5}]",  # Unexpected instruction types
    "tex.2d.v4.f32.u32 {%f0, %f1, %f2, %f3}, [%rd0, {%r10, %r11}]",  # require .s32
    "tex.v4.f32.f32 {%f0, %f1, %f2, %f3}, [%rd0, {%f10, %f11}]",  # Geometry modifier required
    "tld4.2d.v4.f32.f32 {%f0, %f1, %f2, %f3}, [%rd0, {%f10, %f11}]",  # Component required
    "tld4.r.g.2d.v4.f32.f32 {%f0, %f1, %f2, %f3}, [%rd0, {%f10, %f11}]",
    "tld4.r.2d.v4.f32.s32 {%f0, %f1, %f2, %f3}, [%rd0, {%r10, %r11}]",  # Unexpected types
    "tld4.r.2d.v4.f16.f32 {%h0, %h1, %h2, %h3}, [%rd0, {%f10, %f11}]",
    "tld4.r.1d.v4.f32.f32 {%f0, %f1, %f2, %f3}, [%rd0, {%f10}]",  # Illegal modifier '.1d'
    "tld4.r.2d.v4.f32.f32 {%f0, %f1, %f2, %f3}, [%rd0, {%f10}]",  # doesn't match geometry
    "tex.2d.v4.f32.f32 {%f0, %f1, %f2, %f3}, [%r1, {%f10, %f11}]",  # Arguments mismatch
    "tex.2d.v4.f32.f32 {%f0, %f1, %f2, %f3}, [%rd0, %f1, {%f10, %f11}]",
]


@pytest.mark.parametrize("text", VALID)
def test_the_isa_forms_are_accepted(text: str) -> None:
    prediction = agreement.predict(text)
    assert prediction.status == "accept", prediction.reason
    instruction = parse_template(text + ";", extended=False).instructions[0]
    assert grammar.check(instruction, agreement.resolve).issues == ()


@pytest.mark.parametrize("text", UNDOCUMENTED)
def test_what_ptxas_takes_beyond_the_isa_is_a_warning(text: str) -> None:
    assert agreement.predict(text).status == "accept"
    instruction = parse_template(text + ";", extended=False).instructions[0]
    issues = grammar.check(instruction, agreement.resolve).issues
    assert [(i.kind, i.severity) for i in issues] == [("combination", "warning")]


@pytest.mark.parametrize("text", MUTANTS)
def test_mutants_are_rejected(text: str) -> None:
    assert agreement.predict(text).status == "reject", text


@pytest.mark.parametrize("text", [
    "tex.level.2d.v4.f32.f32 {%f0, %f1, %f2, %f3}, [%rd0, {%f10, %f11}], %f30",
    "tex.a1d.v4.f32.f32 {%f0, %f1, %f2, %f3}, [%rd0, {%r10, %f11}]",
    "tex.cube.v4.f32.f32 {%f0, %f1, %f2, %f3}, [%rd0, {%f10, %f11, %f12, %f13}]",
    "tld4.r.a2d.v4.f32.f32 {%f0, %f1, %f2, %f3}, [%rd0, {%r10, %f11, %f12, %f13}]",
])
def test_the_parts_not_written_down_are_not_judged(text: str) -> None:
    assert agreement.predict(text).status == "abstain"


def test_the_texture_is_a_64_bit_handle() -> None:
    text = "tex.2d.v4.f32.f32 {%f0, %f1, %f2, %f3}, [%r1, {%f10, %f11}];"
    instruction = parse_template(text, extended=False).instructions[0]
    (issue,) = grammar.check(instruction, agreement.resolve).issues
    assert issue.kind == "type" and "the texture of operand 2" in issue.message


def test_a_sampler_of_the_wrong_type_is_reported_on_the_sampler() -> None:
    # ptxas 13.0: "Arguments mismatch"; the closest form is the one with a sampler (an address
    # of three parts), not the one without misspelt
    text = (
        "__device__ float4 f(unsigned long long t, unsigned s, float x, float y) {\n"
        "  float4 v;\n"
        '  asm("tex.2d.v4.f32.f32 {%0, %1, %2, %3}, [%4, %5, {%6, %7}];"\n'
        '      : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w) : "l"(t), "r"(s), "f"(x), "f"(y));\n'
        "  return v;\n}\n"
    )
    (finding,) = lint_text(text, select=("PTX206", "PTX207"))
    assert finding.rule == "PTX206" and finding.message.startswith("'%5' is operand 5")


def test_a_sink_in_a_packed_half_result_is_not_judged() -> None:
    # ptxas 13.0 takes '_' in a .v4 result, not in a .v2.f16x2 one ("Result discard mode is
    # not allowed for instruction 'mov'"): that one is left unjudged
    assert agreement.predict(
        "tex.2d.v4.f32.f32 {%f0, %f1, %f2, _}, [%rd0, {%f10, %f11}]").status == "accept"
    assert agreement.predict(
        "tex.2d.v2.f16x2.f32 {_, %r1}, [%rd0, {%f10, %f11}]").status == "abstain"


def test_an_output_of_the_wrong_register_class_is_ptx206() -> None:
    text = (
        "__device__ void f(unsigned long long t, float x, float y, float* o) {\n"
        "  float a, b, c, d;\n"
        '  asm("tex.2d.v4.u32.f32 {%0, %1, %2, %3}, [%4, {%5, %6}];"\n'
        '      : "=f"(a), "=f"(b), "=f"(c), "=f"(d) : "l"(t), "f"(x), "f"(y));\n'
        "  o[0] = a + b + c + d;\n}\n"
    )
    found = lint_text(text, select=("PTX206",))
    assert found and all(f.rule == "PTX206" for f in found)  # ptxas: Arguments mismatch


def test_the_vector_order_fix_is_the_isas() -> None:
    """ptxas 13.0 warns "Vector Type not specified properly" on both and builds the fixed text
    without the warning (sm_90)."""
    text = (
        "__device__ int f(unsigned long long t, float x, float y) {\n"
        "  int a, b, c, d, e, g, h, i;\n"
        '  asm volatile("tex.1d.s32.f32.v4 {%0, %1, %2, %3}, [%4, {%5}];"\n'
        '      : "=r"(a), "=r"(b), "=r"(c), "=r"(d) : "l"(t), "f"(x));\n'
        '  asm volatile("tld4.r.2d.s32.f32.v4 {%0, %1, %2, %3}, [%4, {%5, %6}];"\n'
        '      : "=r"(e), "=r"(g), "=r"(h), "=r"(i) : "l"(t), "f"(x), "f"(y));\n'
        "  return a + b + c + d + e + g + h + i;\n}\n"
    )
    found = lint_text(text, select=("PTX204",))
    assert [(f.severity.value, f.fix.description if f.fix else None) for f in found] == [
        ("warning", "write 'tex.1d.v4.s32.f32'"), ("warning", "write 'tld4.r.2d.v4.s32.f32'")]


def test_the_texture_families_are_covered_with_their_undescribed_parts() -> None:
    from ptxlint.ptx.grammar_data import PARTIAL

    assert grammar.covered("tex") and grammar.covered("tld4")
    assert {"level", "grad", "base", "cube"} <= PARTIAL["tex"]


@pytest.mark.skipif(agreement.PTXAS is None, reason="ptxas (CUDA toolkit) not found")
def test_agreement_with_ptxas() -> None:
    Case = agreement.Case
    cases = [Case(t, t.split(".")[0], "valid", "textures") for t in VALID + UNDOCUMENTED]
    cases += [Case(t, t.split(".")[0], "mutant", "textures") for t in MUTANTS]
    rows = agreement.evaluate(cases, agreement.Oracle(), targets=((75, ""), (90, ""),
                                                                   (100, "a")))
    out = io.StringIO()
    agreement.summarize(rows, out)
    for row in rows:
        assert row.ptxlint == row.ptxas, (row.case.text, row.target, row.ptxas_message)
