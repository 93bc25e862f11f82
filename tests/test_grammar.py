"""The per-form instruction grammar (ptxlint/ptx/grammar.py) and the rules that read it."""

from __future__ import annotations

import pytest

from ptxlint.model import PtxOperand
from ptxlint.ptx import grammar
from ptxlint.ptx.effects import written_refs
from ptxlint.ptx.grammar import Need, OperandClass
from ptxlint.ptx.instructions import form_of, requirement
from ptxlint.ptx.parser import parse_template
from ptxlint.rule import RuleContext
from tests.conftest import lint_text


def _unknown(operand: PtxOperand) -> OperandClass:
    if operand.kind == "immediate":
        return OperandClass("imm", value=grammar.parse_immediate(operand.text))
    return OperandClass("unknown")


def verdict(text: str) -> grammar.Verdict:
    [instruction] = parse_template(text, True).instructions
    return grammar.check(instruction, _unknown)


def test_every_form_compiles_and_names_its_opcode() -> None:
    forms = grammar.forms()
    assert len(forms) > 300
    assert all(f.opcode and f.spec.startswith(f.opcode) for f in forms)
    with pytest.raises(ValueError):
        grammar.compile_form("add{.xorsign.abs}.f32 d:f32, a:f32, a:f32")  # one word per value


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("add.sat.u32 %0, %1, %2;", "combination"),
        ("add.rn.s32 %0, %1, %2;", "combination"),
        ("add.sta.s32 %0, %1, %2;", "modifier"),
        ("cp.async.cg.shared.global [%0], [%1], 4;", "operand"),
        ("cp.async.wait_group (int64_t)2;", "operand"),
        ("bar.sync 16;", "operand"),
        ("mbarrier.arrive.release.cta.expect_tx.b64 %0, [%1], %2;", "combination"),
    ],
)
def test_errors_name_their_kind(text: str, kind: str) -> None:
    result = verdict(text)
    assert result.status == "error" and result.issues[0].kind == kind


@pytest.mark.parametrize(
    "text",
    [
        "add.sat.s32 %0, %1, %2;",
        "cp.async.ca.shared.global [%0], [%1], 4;",
        "cp.async.cg.shared.global.L2::128B [%0], [%1], 16, %2;",
        "mbarrier.try_wait.parity.acquire.cluster.shared::cta.b64 p, [%0], %1, %2;",
        "ld.global.nc.L1::no_allocate.v4.u32 {%0, %1, %2, %3}, [%4];",
        "mov.b64 {%0, %1}, %2;",
        "atom.global.add.noftz.bf16x2 %0, [%1], %2;",
    ],
)
def test_real_forms_are_ok(text: str) -> None:
    assert verdict(text).status == "ok"


def test_sub_families_not_written_down_abstain() -> None:
    assert verdict("cp.async.bulk.tensor.3d.shared::cluster.global.im2col::w."
                   "mbarrier::complete_tx::bytes [%0], [%1, {%2, %3, %4}], [%5], {%6, %7};"
                   ).status == "abstain"
    assert verdict("st.async.shared::cluster.mbarrier::complete_tx::bytes.b32 [%0], %1, [%2];"
                   ).status == "abstain"
    assert verdict("tex.1d.v4.f32.f32 {%0, %1, %2, %3}, [%4, {%5}];").status == "abstain"
    assert grammar.judged("ld", ("global", "v8", "f32")) is True
    # a combination of words (".v8" of 16-bit types) can abstain while each word is judged
    assert grammar.judged("ld", ("global", "v8", "b16")) is False
    assert grammar.judged("ld", ("global", "v4", "b16")) is True


def test_targets_are_per_form() -> None:
    mma = verdict("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, "
                  "{%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};")
    assert mma.need.sm == 80
    assert requirement("mma", ("sync", "aligned", "m16n8k8", "row", "col", "f32", "f16", "f16",
                               "f32")).sm == 75
    # an mbarrier.arrive with a count needs sm_90, without one sm_80
    assert verdict("mbarrier.arrive.shared.b64 %0, [%1];").need.sm == 80
    assert verdict("mbarrier.arrive.shared.b64 %0, [%1], %2;").need.sm == 90
    assert Need.parse("90a").admits(90, "a") and not Need.parse("90a").admits(100, "a")
    assert Need.parse("90").admits(90, "") and not Need.parse("90").admits(80, "")
    assert form_of("add", ("sat", "s32")) == "add.sat.s32 d:s32, a:s32, a:s32"


def test_written_operands_come_from_the_form() -> None:
    [shfl] = parse_template("shfl.sync.idx.b32 %0|%1, %2, 0, 31, -1;", True).instructions
    assert written_refs(shfl) == {0, 1}
    [arrive] = parse_template("mbarrier.arrive.shared::cta.b64 %0, [%1];", True).instructions
    assert written_refs(arrive) == {0}
    [red] = parse_template("red.global.add.u32 [%0], %1;", True).instructions
    assert written_refs(red) == set()


def test_float_letters_are_bits_from_sm_100_on() -> None:
    text = 'asm("add.u32 %0, %1, %2;" : "=r"(d) : "f"(x), "r"(b));'
    source = f"__device__ void k(unsigned d, float x, unsigned b) {{ {text} }}"
    ids = ("PTX206",)
    assert [f.rule for f in lint_text(source, select=ids, context=RuleContext(90, "a"))] == [
        "PTX206"]
    assert lint_text(source, select=ids, context=RuleContext(100, "a")) == []
    guarded = ("__device__ void k(unsigned d, float x, unsigned b) {\n#if __CUDA_ARCH__ >= 1000\n"
               f"{text}\n#endif\n}}")
    assert lint_text(guarded, select=ids) == []


def test_undocumented_form_is_a_warning() -> None:
    source = ('__device__ void k(unsigned short a) { unsigned short d; '
              'asm("fma.rz.bf16 %0, %1, %1, %1;" : "=h"(d) : "h"(a)); }')
    [finding] = lint_text(source, select=("PTX204",))
    assert finding.severity.value == "warning" and "does not document" in finding.message
