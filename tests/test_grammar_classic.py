"""Classic instruction families checked against ptxas 13.0 (nvcc -arch=sm_80/sm_90a/sm_100a):
each case is a C++ inline asm statement as people write it, with the toolchain's verdict and,
for a rejected one, the ptxas message the finding follows."""

from __future__ import annotations

import pytest

from ptxlint.rule import RuleContext
from tests.conftest import lint_text

_SM80 = RuleContext(arch=80)
GRAMMAR = ("PTX204", "PTX206", "PTX207", "PTX208", "PTX401", "PTX402")


def _asm(template: str, outs: str = '"=r"(r)', ins: str = '"l"(p)') -> str:
    return ("__device__ void f(const unsigned *p, unsigned x, unsigned long long q, "
            "unsigned &r, unsigned short &h) {\n"
            f'  asm volatile("{template}" : {outs} : {ins} : "memory");\n}}\n')


def _rules(template: str, outs: str = '"=r"(r)', ins: str = '"l"(p)') -> list[str]:
    return [f.rule for f in lint_text(_asm(template, outs, ins), select=GRAMMAR)]


# a .b128 packs and unpacks four .b32 (ptxas 13.0, sm_90); eight .b16 it rejects: "Illegal
# vector size: 8"
@pytest.mark.parametrize("template", [
    "{.reg .b128 t; mov.b128 t, {%1, %1, %1, %1}; mov.b128 {%0, %0}, t;}",
    "{.reg .b128 t; mov.b128 t, {%2, %2}; mov.b128 {%1, _, _, %1}, t; mov.b64 %0, 0;}",
])
def test_mov_b128_packs_four_b32(template: str) -> None:
    outs = '"=l"(q)' if "%2" not in template else '"=l"(q), "+r"(r)'
    assert _rules(template, outs, '"r"(x)' if "%2" not in template else '"l"(q)') == []


def test_mov_b128_takes_no_eight_b16() -> None:
    template = "{.reg .b128 t; mov.b128 t, {%1, %1, %1, %1, %1, %1, %1, %1}; mov.b128 {%0, %0}, t;}"
    assert _rules(template, '"=l"(q)', '"h"((unsigned short)x)') == ["PTX207"]


# The nearest form of a spelling no form has: ptxas reads the types and state spaces where they
# are written, so a form in the written order a word away is nearer than one with two of them
# swapped
@pytest.mark.parametrize(("template", "outs", "ins", "blamed"), [
    # ptxas 13.0 (sm_100a): "Illegal rounding modifier for instruction 'cvt'" (the
    # ue8m0x2-to-bf16x2 conversion rounds .rn; .rz/.rp are the other direction's)
    ("cvt.rz.bf16x2.ue8m0x2 %0, %1;", '"=r"(r)', '"h"((unsigned short)x)', "'.rz'"),
    # ptxas 13.0 (sm_90a): "Illegal modifier '.mbarrier::complete_tx::bytes' for instruction
    # 'cp.async.bulk'" (the shared-to-global copy completes through a bulk group)
    ("cp.async.bulk.global.shared::cta.mbarrier::complete_tx::bytes [%0], [%1], 256, [%1];",
     "", '"l"(p), "r"(x)', "'.mbarrier::complete_tx::bytes'"),
])
def test_the_written_order_is_nearer_than_a_swap(template: str, outs: str, ins: str,
                                                  blamed: str) -> None:
    findings = [f for f in lint_text(_asm(template, outs, ins), select=GRAMMAR)]
    assert [f.rule for f in findings] == ["PTX204"]
    assert findings[0].message.startswith(f"{blamed} does not apply"), findings[0].message


def test_types_in_the_wrong_order_are_out_of_place() -> None:
    # every other word and both operands (a .b16 result, a .b32 source) fit
    # cvt.rz.satfinite.ue8m0x2.bf16x2, two type words swapped; ptxas 13.0 (sm_100a) reads
    # them where written: "Arguments mismatch for instruction 'cvt'"
    findings = lint_text(_asm("cvt.rz.satfinite.bf16x2.ue8m0x2 %0, %1;", '"=h"(h)', '"r"(x)'),
                         select=GRAMMAR)
    assert [f.rule for f in findings] == ["PTX204"] and "out of place" in findings[0].message


@pytest.mark.parametrize(("template", "outs", "ins", "blamed"), [
    # ptxas 13.0 (sm_80): "Illegal modifier '.approx' for instruction 'div'"
    ("div.approx.f64 %0, %1, %1;", '"=d"(d)', '"d"(d)', "'.approx' does not apply"),
    # ptxas 13.0 (sm_80): "Illegal rounding modifier for instruction 'cvt'"
    ("cvt.rn.f64.f32 %0, %1;", '"=d"(d)', '"f"((float)d)', "'.rn' does not apply"),
    ("cvt.rm.f16x2.f32 %0, %1, %1;", '"=r"(r)', '"f"((float)d)', "'.rm' does not apply"),
    # ptxas 13.0 (sm_80): "Illegal modifier '.sat' for instruction 'fma'" (not the sm_100
    # fma.rn.sat.f32.bf16 without its .f32); and "Modifier '.nc' requires .global space"
    ("fma.rn.sat.bf16 %0, %1, %1, %1;", '"=h"(h)', '"h"(h)', "'.sat' does not apply"),
    # "Illegal rounding modifier for instruction 'fma'" (fma.rz.f32.f16 adds a type)
    ("fma.rz.f16 %0, %1, %1, %1;", '"=h"(h)', '"h"(h)', "'.rz' does not apply"),
    ("ld.nc.u32 %0, [%1];", '"=r"(r)', '"l"(p)', "'ld.nc.u32' lacks '.global'"),
    # ptxas 13.0 (sm_80): "Illegal alayout '.col' for instruction 'mma'": the layouts of the
    # m16n8k16 form are .row.col; the shape stays (not the m8n8k4 form's .col.row)
    ("mma.sync.aligned.m16n8k16.col.row.f32.f16.f16.f32 {%0,%0,%0,%0}, {%1,%1,%1,%1}, "
     "{%1,%1}, {%0,%0,%0,%0};", '"+f"(f)', '"r"(x)', "'.col' is out of place"),
])
def test_the_words_ptxas_reads_by_stay(template: str, outs: str, ins: str,
                                       blamed: str) -> None:
    source = _asm(template, outs, ins).replace("unsigned &r,", "unsigned &r, double &d, float &f,")
    findings = lint_text(source, select=GRAMMAR)
    assert [f.rule for f in findings] == ["PTX204"]
    assert findings[0].message.startswith(blamed), findings[0].message


_F4 = '"+f"(f), "+f"(f), "+f"(f), "+f"(f)'


# mma.sync's .b32 fragments of 16-bit and tf32 inputs and its packed .f16 and .s32
# accumulators take no .f32 register (ptxas 13.0, sm_80: "Arguments mismatch for instruction
# 'mma'"); the fragments of integer and fp8 inputs do, as .f32 accumulators take .b32 ones
@pytest.mark.parametrize(("template", "outs", "ins", "rules"), [
    ("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%4,%4,%4}, "
     "{%5,%5}, {%0,%1,%2,%3};", _F4, '"f"(f), "r"(x)', ["PTX206"]),
    ("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0,%1,%2,%3}, {%4,%4,%4,%4}, "
     "{%5,%5}, {%0,%1,%2,%3};", _F4, '"r"(x), "f"(f)', ["PTX206"]),
    ("mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16 {%0,%1}, {%2,%2,%2,%2}, {%2,%2}, "
     "{%0,%1};", '"+f"(f), "+f"(f)', '"r"(x)', ["PTX206"]),
    ("mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32 {%0,%1,%2,%3}, {%4,%4,%4,%4}, "
     "{%4,%4}, {%0,%1,%2,%3};", _F4, '"r"(x)', ["PTX206"]),
    # accepted
    ("mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32 {%0,%0,%0,%0}, {%1,%1,%1,%1}, "
     "{%1,%1}, {%0,%0,%0,%0};", '"+r"(r)', '"f"(f)', []),
    ("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0,%1,%2,%3}, {%4,%4,%4,%4}, "
     "{%4,%4}, {%5,%5,%5,%5};", _F4, '"r"(x), "r"(x)', []),
])
def test_mma_fragments_that_take_no_float_register(template: str, outs: str, ins: str,
                                                   rules: list[str]) -> None:
    source = _asm(template, outs, ins).replace("unsigned &r,", "unsigned &r, float &f,")
    assert [f.rule for f in lint_text(source, select=GRAMMAR, context=_SM80)] == rules


def test_cp_async_reads_its_state_spaces_by_position() -> None:
    # ptxas 13.0 (sm_80): "State space incorrect for instruction 'cp.async'"
    wrong = lint_text(_asm("cp.async.ca.global.shared [%0], [%1], 16;", "", '"l"(p), "r"(x)'),
                      select=GRAMMAR)
    assert [f.rule for f in wrong] == ["PTX204"]
    assert "'.global' is out of place: ptxas reads the state spaces" in wrong[0].message
    right = _asm("cp.async.cg.shared::cta.global.L2::128B [%0], [%1], 16;", "", '"r"(x), "l"(p)')
    assert lint_text(right, select=GRAMMAR) == []


@pytest.mark.parametrize("template", [
    "st.async.shared::cluster.mbarrier::complete_tx::bytes.v2.u32 [%0], {%1, _}, [%0];",
    # a vector in the scalar's place (ptxas's own rules, not judged) holds no sink either
    "st.async.shared::cluster.mbarrier::complete_tx::bytes.u32 [%0], {%1, _}, [%0];",
])
def test_a_sink_is_no_source_of_st_async(template: str) -> None:
    # ptxas 13.0 (sm_90a): "Sink '_' not allowed as a source operand"
    findings = lint_text(_asm(template, "", '"r"(x), "r"(x)'), select=GRAMMAR)
    assert [f.rule for f in findings] == ["PTX207"] and "'_' cannot be" in findings[0].message


@pytest.mark.parametrize("template", ["add.cc.f32 %0, %1, %1;", "add.cc.b32 %0, %1, %1;"])
def test_a_misspelled_carry_instruction_is_one_finding(template: str) -> None:
    # ptxas 13.0 (sm_80): "Illegal modifier '.cc' for instruction 'add'", "Unexpected
    # instruction types specified for 'add'": PTX204's; no PTX107 about its carry flag
    outs, ins = ('"=f"(f)', '"f"(f)') if "f32" in template else ('"=r"(r)', '"r"(x)')
    source = _asm(template, outs, ins).replace("unsigned &r,", "unsigned &r, float &f,")
    assert [f.rule for f in lint_text(source, select=(*GRAMMAR, "PTX107"))] == ["PTX204"]
    spelled = _asm("add.cc.u32 %0, %1, %1;", '"=r"(r)', '"r"(x)')
    assert [f.rule for f in lint_text(spelled, select=(*GRAMMAR, "PTX107"))] == ["PTX107"]


def test_an_unknown_state_space_is_not_generic() -> None:
    # ptxas 13.0 (sm_80): "Unknown modifier '.shared::gpu'": PTX204's, not PTX301's shared
    # offset "in a generic access"
    source = _asm("ld.shared::gpu.u32 %0, [%1];", '"=r"(r)', '"r"(x)')
    assert [f.rule for f in lint_text(source, select=(*GRAMMAR, "PTX301"))] == ["PTX204"]


@pytest.mark.parametrize("immediate", ["(0xF0 & 0xCC) | 0xAA", "0xF0 | 0x0F", "(0xF0 | 0xCC) ^ 0xAA"])
def test_a_constant_expression_with_bitwise_or(immediate: str) -> None:
    # ptxas 13.0 (sm_80) takes these as lop3's immediate; PTX207 read the '|' as a d|p pair
    source = _asm(f"lop3.b32 %0, %1, %1, %1, {immediate};", '"=r"(r)', '"r"(x)')
    assert lint_text(source, select=GRAMMAR) == []


# addresses ptxas 13.0 (sm_80) cannot read: "Parsing error near '%r2'" / "near '-'", and
# "Immediate addresses allowed only for .local state space"; a "n" offset is an immediate
@pytest.mark.parametrize(("address", "ins", "rules"), [
    ("[%1+%1]", '"r"(x)', ["PTX207"]),
    ("[%1+-%1]", '"r"(x)', ["PTX207"]),
    ("[4+%1]", '"r"(x)', ["PTX207"]),
    ("[%1-4]", '"r"(x)', ["PTX207"]),
    ("[%1-%2]", '"r"(x), "n"(16)', ["PTX207"]),
    ("[16]", '"r"(x)', ["PTX207"]),
    ("[%1+%2]", '"r"(x), "n"(16)', []),
    ("[%1+-4]", '"r"(x)', []),
    ("[%1 + -4]", '"r"(x)', []),
    ("[%1+4+4]", '"r"(x)', []),
    # a '-' after the offset is a constant expression's: ptxas takes '[%1+8-4]'
    ("[%1+8-4]", '"r"(x)', []),
    ("[%1 - 4]", '"r"(x)', ["PTX207"]),
])
def test_the_addresses_ptxas_reads(address: str, ins: str, rules: list[str]) -> None:
    source = _asm(f"ld.shared.u32 %0, {address};", '"=r"(r)', ins)
    assert [f.rule for f in lint_text(source, select=GRAMMAR)] == rules


def test_an_immediate_address_is_local() -> None:
    source = _asm("ld.local.u32 %0, [16];", '"=r"(r)', '"r"(x)')
    assert [f.rule for f in lint_text(source, select=GRAMMAR)] == []


@pytest.mark.parametrize(("template", "outs", "rules"), [
    # ptxas 13.0 (sm_90a): "Arguments mismatch for instruction 'mov'"
    ("mov.u64 %0, %%tid.x;", '"=l"(q)', ["PTX206"]),
    ("mov.b64 %0, %%nctaid.z;", '"=l"(q)', ["PTX206"]),
    # accepted: a 16-bit or 32-bit register, and cvt from its .u32
    ("mov.u16 %0, %%ctaid.y;", '"=h"(h)', []),
    ("mov.u32 %0, %%ntid.x;", '"=r"(r)', []),
    ("cvt.u64.u32 %0, %%tid.x;", '"=l"(q)', []),
])
def test_the_thread_index_components_are_16_or_32_bits(template: str, outs: str,
                                                        rules: list[str]) -> None:
    source = _asm(template, outs, "")
    assert [f.rule for f in lint_text(source, select=GRAMMAR)] == rules


@pytest.mark.parametrize(("template", "outs", "message"), [
    # ptxas 13.0 (sm_80): "Unexpected instruction types specified for 'mul'"
    ("mul.u32.lo %0, %1, %1;", '"=r"(r)', "'.lo' is out of place: it is part of the "
     "instruction's name, 'mul.lo'"),
    ("mad.cc.lo.u32 %0, %1, %1, %0;", '"+r"(r)', "'.lo' is out of place"),
    # "Unknown modifier '.wide'"; "Not a name of any known instruction: 'mul24'"
    ("mul.u32.wide %0, %1, %1;", '"=l"(q)', "'.wide' is out of place"),
    ("mul24.u32.lo %0, %1, %1;", '"=r"(r)', "'.lo' is out of place"),
    ("mul.u32 %0, %1, %1;", '"=r"(r)', "'mul.u32' lacks one of '.hi', '.lo'"),
])
def test_the_integer_mode_comes_first(template: str, outs: str, message: str) -> None:
    findings = lint_text(_asm(template, outs, '"r"(x)'), select=GRAMMAR)
    assert [f.rule for f in findings] == ["PTX204"]
    assert findings[0].message.startswith(message), findings[0].message


@pytest.mark.parametrize("template", ["mad.lo.u32.cc %0, %1, %1, %0; addc.u32 %0, %0, 0;",
                                      "mad.hi.s32.sat %0, %1, %1, %0;"])
def test_the_other_words_follow_in_any_order(template: str) -> None:
    # ptxas 13.0 (sm_80) takes these
    assert lint_text(_asm(template, '"+r"(r)', '"r"(x)'), select=GRAMMAR) == []


@pytest.mark.parametrize(("template", "message"), [
    # ptxas 13.0 (sm_80): "Unknown modifier '.l'"
    ("shf.wrap.l.b32 %0, %1, %1, %1;", "'.l' is out of place"),
    # "'.hi/.lo' modifier required for instruction 'dp2a'"
    ("dp2a.u32.u32.lo %0, %1, %1, %1;", "'.lo' is out of place"),
    # "Unknown modifier '.pack'"
    ("cvt.sat.pack.s16.s32 %0, %1, %1;", "'.pack' does not apply"),
])
def test_more_names_come_first(template: str, message: str) -> None:
    findings = lint_text(_asm(template, '"=r"(r)', '"r"(x)'), select=GRAMMAR)
    assert [f.rule for f in findings] == ["PTX204"]
    assert findings[0].message.startswith(message), findings[0].message
    # the words after the name in any order: 'shf.l.b32.wrap' compiles
    assert lint_text(_asm("shf.l.b32.wrap %0, %1, %1, %1;", '"=r"(r)', '"r"(x)'),
                     select=GRAMMAR) == []


@pytest.mark.parametrize(("template", "message"), [
    # ptxas 13.0 (sm_90a): "Unknown modifier '.proxy'", "Not a name of any known
    # instruction: 'setmaxnreg'", "Unknown modifier '.arrive'", "Unknown modifier '.to'"
    ("fence.async.proxy;", "'.proxy' is out of place"),
    ("setmaxnreg.sync.aligned.inc.u32 240;", "'.inc' is out of place"),
    ("cp.async.mbarrier.noinc.arrive.shared.b64 [%0];", "'.arrive' is out of place"),
    ("cvta.global.to.u64 %0, %1;", "'.to' does not apply"),
])
def test_the_names_of_fence_proxy_setmaxnreg_and_cvta_to(template: str, message: str) -> None:
    outs, ins = ('"=l"(q)', '"l"(p)') if "cvta" in template else ("", '"r"(x)')
    findings = lint_text(_asm(template, outs, ins), select=GRAMMAR,
                         context=RuleContext(arch=90, arch_suffix="a"))
    assert [f.rule for f in findings] == ["PTX204"]
    assert findings[0].message.startswith(message), findings[0].message


@pytest.mark.parametrize(("template", "arch"), [
    # ptxas 13.0: barrier.arrive without its operands ("Arguments mismatch"), "Unknown
    # modifier '.ld_reduce'", "Unknown modifier '.fractional'", "Unknown modifier '.bulk'",
    # "Unknown modifier '.wait_group'"
    ("barrier.arrive.cluster;", 90),
    ("multimem.global.ld_reduce.relaxed.sys.add.u32 %0, [%1];", 90),
    ("createpolicy.L2::evict_last.fractional.b64 %0, 1.0;", 80),
    ("cp.async.commit_group.bulk;", 90),
    ("cp.async.bulk.read.wait_group 0;", 90),
])
def test_named_instructions_out_of_order(template: str, arch: int) -> None:
    outs = '"=l"(q)' if "createpolicy" in template else ('"=r"(r)' if "%0" in template else "")
    ins = '"l"(p)' if "%1" in template else ""
    findings = lint_text(_asm(template, outs, ins), select=GRAMMAR,
                         context=RuleContext(arch=arch, arch_suffix="a" if arch == 90 else ""))
    assert [f.rule for f in findings] == ["PTX204"]


@pytest.mark.parametrize(("register", "rules"), [
    # ptxas 13.0 (sm_80): "Arguments mismatch for instruction 'mov'"
    ("%%envreg32", ["PTX207"]), ("%%pm8", ["PTX207"]),
    ("%%envreg31", []), ("%%pm7", []),
])
def test_the_numbered_special_registers(register: str, rules: list[str]) -> None:
    source = _asm(f"mov.u32 %0, {register};", '"=r"(r)', "")
    assert [f.rule for f in lint_text(source, select=GRAMMAR)] == rules
