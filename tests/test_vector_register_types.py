"""Registers declared with a type in a template (``.reg .u32 %u<8>;``) against the operand types
of the instruction grammar, where the register classes of inline asm never reach: the matrix
fragments of ``mma`` and ``wmma`` (the ISA's packs, ``.f16x2``, ``.bf16x2``, ``.tf32``; the
``.s32`` accumulators; the ``.f64`` ones), ``cvt.rs``'s random bits (an untyped ``.b32`` only),
``set``'s ``.bf16`` result (a 16-bit integer or bit register),
and a vector's registers, which ptxas types as one (``vector_type``) before it checks them. Each
case is assembled with ptxas 13.0 where it is installed."""

from __future__ import annotations

import pytest

from ptxlint.ptx import grammar
from ptxlint.ptx.operand_classes import VectorType, vector_type
from ptxlint.ptx.parser import parse_template
from tests.probe_registers import assemble, resolve
from tests.toolchain_cache import PTXAS


def _type_errors(text: str) -> list[str]:
    [instruction] = parse_template(text + ";", extended=False).instructions
    verdict = grammar.check(instruction, resolve)
    assert verdict.form is not None or verdict.issues, text  # the grammar speaks
    return [i.message for i in verdict.issues if i.kind == "type"]


_MMA16 = "mma.sync.aligned.m16n8k16.row.col"
_F32_D = "{%f0, %f1, %f2, %f3}"
_F32_C = "{%f4, %f5, %f6, %f7}"
_B = "{%r4, %r5}"
_WMMA_A = "wmma.load.a.sync.aligned.row.m16n16k16.global"
_U8 = "{%u0, %u1, %u2, %u3, %u4, %u5, %u6, %u7}"
_HX8 = "{%hx0, %hx1, %hx2, %hx3, %hx4, %hx5, %hx6, %hx7}"

# (target, instruction): ptxas 13.0 answers "Arguments mismatch" (or, for a mix, "Vector with
# elements of different types" / "Incompatible elements of vector expression")
REJECTED = [
    # the .f16 fragments and accumulators are .f16x2 packs: no .u32/.s32/.f32 register
    ("sm_90a", f"{_MMA16}.f32.f16.f16.f32 {_F32_D}, {{%u0, %u1, %u2, %u3}}, {_B}, {_F32_C}"),
    ("sm_90a", f"{_MMA16}.f32.f16.f16.f32 {_F32_D}, {{%r0, %r1, %r2, %r3}}, {{%u4, %u5}}, "
               f"{_F32_C}"),
    ("sm_90a", f"{_MMA16}.f32.f16.f16.f32 {_F32_D}, {{%f0, %f1, %f2, %f3}}, {_B}, {_F32_C}"),
    ("sm_90a", f"{_MMA16}.f16.f16.f16.f16 {{%u0, %u1}}, {{%r0, %r1, %r2, %r3}}, {_B}, {_B}"),
    ("sm_90a", f"{_MMA16}.f16.f16.f16.f16 {{%r0, %r1}}, {{%r0, %r1, %r2, %r3}}, {_B}, "
               "{%s4, %s5}"),
    ("sm_90a", "mma.sp.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%f0, %f1, %f2, %f3}, "
               "{%u0, %u1}, {%r0, %r1}, {%f4, %f5, %f6, %f7}, %r9, 0"),
    # .bf16x2 takes no .f16x2 register, .tf32 no .f32 one (the dense forms)
    ("sm_90a", f"{_MMA16}.f32.bf16.bf16.f32 {_F32_D}, {{%hx0, %hx1, %hx2, %hx3}}, {_B}, "
               f"{_F32_C}"),
    ("sm_90a", "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%f0, %f1, %f2, %f3}, "
               "{%f0, %f1, %f2, %f3}, {%r4, %r5}, {%f4, %f5, %f6, %f7}"),
    # the .s32 accumulators: no .f32, no .f16x2 register
    ("sm_90a", "mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32 {%r0, %r1, %r2, %r3}, "
               "{%r0, %r1, %r2, %r3}, {%r4, %r5}, {%hx4, %hx5, %hx6, %hx7}"),
    ("sm_90a", "wmma.load.c.sync.aligned.row.m16n16k16.global.s32 " + _HX8 + ", [%rd0]"),
    # wmma's fragments as mma's; its .s8 ones take no .f32 register
    ("sm_90a", f"{_WMMA_A}.f16 {_U8}, [%rd0]"),
    ("sm_90a", f"{_WMMA_A}.bf16 {{%hx0, %hx1, %hx2, %hx3}}, [%rd0]"),
    ("sm_90a", f"{_WMMA_A}.s8 {{%f0, %f1}}, [%rd0]"),
    ("sm_90a", "wmma.load.c.sync.aligned.row.m16n16k16.global.f16 {%f0, %f1, %f2, %f3}, [%rd0]"),
    # cvt.rs's random bits: an untyped .b32 register only
    ("sm_100a", "cvt.rs.satfinite.f16x2.f32 %r0, %f1, %f2, %u3"),
    ("sm_100a", "cvt.rs.satfinite.f16x2.f32 %r0, %f1, %f2, %f3"),
    ("sm_100a", "cvt.rs.satfinite.e4m3x4.f32 %r0, {%f1, %f2, %f3, %f4}, %s3"),
    # a packed register is no float operand
    ("sm_90a", "st.global.f32 [%rd0], %hx1"),
    ("sm_90a", "setp.eq.f32 %p0, %hx1, %f2"),
    # set's .bf16 result: a 16-bit integer or bit register, no .f16 one
    ("sm_90a", "set.eq.bf16.f32 %hf1, %f2, %f3"),
    # a vector's registers: one size, one type (bit ones aside, a .u beside an .s)
    ("sm_90a", "ld.global.v2.b32 {%f0, %u1}, [%rd0]"),
    ("sm_90a", "ld.global.v2.b32 {%r0, %rd1}, [%rd0]"),
    ("sm_90a", "ld.global.v4.b32 {%r0, %f1, %u2, %r3}, [%rd0]"),
    ("sm_90a", "mov.b64 %rd0, {%u0, %f1}"),
    # ... and the vector as a whole: .u32 registers for .f16x2, .f32 ones for .u32
    ("sm_90a", "ld.global.v2.u32 {%f0, %f1}, [%rd0]"),
    # an integer vector is no packed one, in any .v2 instruction
    ("sm_90a", "multimem.st.global.v2.f16x2 [%rd0], {%u0, %u1}"),
    ("sm_90a", "red.global.add.noftz.v2.f16x2 [%rd0], {%s0, %s1}"),
    # multimem.red checks .bf16 and .bf16x2 as red does: a bit register only
    ("sm_90a", "multimem.red.global.add.v2.bf16 [%rd0], {%ss0, %ss1}"),
    ("sm_90a", "multimem.red.global.min.v2.bf16x2 [%rd0], {%f0, %f1}"),
    ("sm_90a", "multimem.red.global.add.bf16x2 [%rd0], %hx1"),
    # multimem.ld_reduce/st's untyped .bf16 data: of its size only
    ("sm_90a", "multimem.ld_reduce.global.add.v2.bf16 {%r0, %r1}, [%rd0]"),
    ("sm_100a", "multimem.st.global.v2.e4m3x2 [%rd0], {%r0, %r1}"),
    # an .f16 vector is no .bf16 one in red, atom and multimem.red
    ("sm_90a", "red.global.add.noftz.v2.bf16 [%rd0], {%hf0, %hf1}"),
    ("sm_90a", "atom.global.add.noftz.v2.bf16 {%h4, %h5}, [%rd0], {%hf0, %hf1}"),
    ("sm_90a", "multimem.red.global.min.v2.bf16 [%rd0], {%hf0, %hf1}"),
    # a tensor copy's im2col offsets are 16-bit integers: no .f16 register
    ("sm_90a", "cp.async.bulk.prefetch.tensor.4d.L2.global.im2col [%rd0, {%r8, %r9, %r10, %r11}], "
               "{%hf0, %hf1}"),
    ("sm_90a", "cp.async.bulk.tensor.3d.shared::cluster.global.im2col.mbarrier::complete_tx::bytes "
               "[%rd0], [%rd1, {%r0, %r1, %r2}], [%rd2], {%hf0}"),
]
TAKEN = [
    # a bit register makes the vector a bit vector, and so does a .u beside an .s
    ("sm_90a", f"{_MMA16}.f32.f16.f16.f32 {_F32_D}, {{%u0, %r1, %r2, %r3}}, {_B}, {_F32_C}"),
    ("sm_90a", f"{_MMA16}.f32.f16.f16.f32 {_F32_D}, {{%r0, %f1, %f2, %f3}}, {_B}, {_F32_C}"),
    ("sm_90a", f"{_MMA16}.f32.f16.f16.f32 {_F32_D}, {{%u0, %s1, %u2, %u3}}, {_B}, {_F32_C}"),
    ("sm_90a", f"{_MMA16}.f32.f16.f16.f32 {_F32_D}, {{%r0, %r1, %r2, %r3}}, {_B}, "
               "{%r4, %u5, %u6, %u7}"),
    ("sm_90a", f"{_MMA16}.f32.bf16.bf16.f32 {_F32_D}, {{%hx0, %r1, %r2, %r3}}, {_B}, {_F32_C}"),
    ("sm_90a", "red.global.add.noftz.v2.f16 [%rd0], {%h0, %hf1}"),
    # the packs' own registers
    ("sm_90a", f"{_MMA16}.f32.f16.f16.f32 {_F32_D}, {{%hx0, %hx1, %hx2, %hx3}}, {_B}, "
               f"{_F32_C}"),
    ("sm_90a", f"{_MMA16}.f16.f16.f16.f16 {{%hx0, %hx1}}, {{%r0, %r1, %r2, %r3}}, {_B}, "
               "{%hx4, %hx5}"),
    ("sm_90a", f"{_WMMA_A}.f16 {_HX8}, [%rd0]"),
    # the integer inputs and accumulators take integer registers, the sparse .bf16/.tf32
    # inputs and .f32 accumulators any 32-bit one, the .f64 ones any 64-bit one
    ("sm_90a", "mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32 {%s0, %s1, %s2, %s3}, "
               "{%f0, %f1, %f2, %f3}, {%u4, %u5}, {%u4, %u5, %u6, %u7}"),
    ("sm_90a", f"{_WMMA_A}.s8 {{%u0, %s1}}, [%rd0]"),
    ("sm_90a", "mma.sp.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%u0, %u1, %u2, %u3}, "
               "{%u0, %u1}, {%f0, %f1}, {%hx4, %hx5, %hx6, %hx7}, %r9, 0"),
    ("sm_90a", "mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%ul0, %ul1}, {%fd0}, {%sl1}, "
               "{%fd2, %fd3}"),
    # cvt.rs's random bits in a .b32 register
    ("sm_100a", "cvt.rs.satfinite.f16x2.f32 %r0, %f1, %f2, %r3"),
    # an integer vector for a float one of a .v2/.v4 instruction, where one register is not
    ("sm_90a", "ld.global.v2.f32 {%u0, %u1}, [%rd0]"),
    ("sm_90a", "st.global.v2.f64 [%rd0], {%sl0, %sl1}"),
    ("sm_90a", "mov.v2.f32 {%f0, %f1}, {%u0, %u1}"),
    ("sm_90a", "set.eq.bf16.f32 %us1, %f2, %f3"),
    ("sm_90a", "set.eq.bf16.bf16 %ss1, %h2, %h3"),
    # a packed register for an integer pack, and for cvt's integer side
    ("sm_90a", "add.u16x2 %r1, %r2, %hx3"),
    ("sm_90a", "cvt.rn.bf16.u32 %h1, %hx2"),
    # multimem.ld_reduce and multimem.st read .bf16, .bf16x2 and the fp8 packs as untyped data
    # of their size: any register of that size, alone or in vectors
    ("sm_90a", "multimem.st.global.v2.bf16 [%rd0], {%us0, %us1}"),
    ("sm_90a", "multimem.ld_reduce.global.add.acc::f32.v4.bf16 {%hf0, %hf1, %hf2, %hf3}, "
               "[%rd0]"),
    ("sm_90a", "multimem.ld_reduce.global.min.bf16x2 %u1, [%rd0]"),
    ("sm_90a", "multimem.st.global.v2.bf16x2 [%rd0], {%hx0, %hx1}"),
    ("sm_100a", "multimem.st.global.v2.e4m3x2 [%rd0], {%hf0, %hf1}"),
    ("sm_100a", "multimem.ld_reduce.global.add.acc::f16.v2.e5m2x2 {%ss0, %ss1}, [%rd0]"),
    ("sm_90a", "multimem.red.global.add.v2.f16 [%rd0], {%us0, %us1}"),
    ("sm_90a", "cp.async.bulk.prefetch.tensor.4d.L2.global.im2col [%rd0, {%r8, %r9, %r10, %r11}], "
               "{%us0, %ss1}"),
]


@pytest.mark.parametrize(("target", "text"), REJECTED)
def test_a_register_ptxas_refuses_is_a_type_error(target: str, text: str) -> None:
    assert _type_errors(text)


@pytest.mark.parametrize(("target", "text"), TAKEN)
def test_a_register_ptxas_takes_is_no_type_error(target: str, text: str) -> None:
    assert _type_errors(text) == []


def test_a_mix_of_types_is_one_issue_on_the_vector() -> None:
    [message] = _type_errors("ld.global.v2.b32 {%f0, %u1}, [%rd0]")
    assert "'{%f0, %u1}'" in message and ".f32 and .u32" in message
    [message] = _type_errors("ld.global.v2.b32 {%r0, %rd1}, [%rd0]")
    assert "different sizes" in message


def test_an_unknown_element_may_be_a_bit_register() -> None:
    # %x0 is no register of the probe: it may be a .b32 one, which makes the vector fit
    assert _type_errors(f"{_MMA16}.f32.f16.f16.f32 {_F32_D}, {{%u0, %u1, %u2, %x0}}, {_B}, "
                        f"{_F32_C}") == []


@pytest.mark.parametrize(("types", "expected"), [
    (("u32", "u32"), VectorType("u32")),
    (("u32", "b32"), VectorType("b32")),
    (("u32", "s32"), VectorType("b32")),
    (("f32", "b32", "f32"), VectorType("b32")),
    (("f32", "u32"), VectorType(None, "kinds")),
    (("f32", "b32", "u32"), VectorType(None, "kinds")),
    (("f16x2", "u32"), VectorType(None, "kinds")),
    (("b32", "b64"), VectorType(None, "sizes")),
    (("u32", None), VectorType(None)),
    (("f32", None, "u32"), VectorType(None, "kinds")),
])
def test_vector_type(types: tuple[str | None, ...], expected: VectorType) -> None:
    assert vector_type(types) == expected


@pytest.mark.parametrize(("target", "text", "taken"),
                         [(g, t, False) for g, t in REJECTED] + [(g, t, True) for g, t in TAKEN])
def test_ptxas_agrees(target: str, text: str, taken: bool) -> None:
    if PTXAS is None:
        pytest.skip("ptxas not found (PATH, CUDA_HOME)")
    result = assemble(PTXAS, "8.7", target, text, 16)
    assert result.ok == taken, result.stderr
    if not taken:
        assert ("Arguments mismatch" in result.stderr or "different types" in result.stderr
                or "Incompatible elements" in result.stderr), result.stderr
