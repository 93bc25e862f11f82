"""A packed operand (``.f16x2``, ``.bf16x2``, ``.u16x2``, ``.f32x2``, ``.tf32``, the narrow-float
packs, PTX ISA 9.4's ``.e4m3x4`` arithmetic) takes a bit register of its size, or one declared
with its own type, never an integer one: ptxas 13.0 to 13.5 answer "Arguments mismatch" for a
``.u32``/``.s32`` register there, and for an ``.f16x2`` one where ``.bf16x2`` or ``.e4m3x4``
belongs. A packed register in turn fits an integer operand of the instruction's type (or of one
derived from it: mul.wide's result) and no integer operand of a type the instruction fixes
(popc's result, a shift amount, a barrier's number). Each case is assembled with the ptxas of
its toolkit where it is installed."""

from __future__ import annotations

import pytest

from ptxlint.ptx import grammar
from ptxlint.ptx.parser import parse_template
from tests.benchmark_module import load
from tests.probe_registers import assemble, resolve
from tests.toolchain_cache import PTXAS

toolkits = load("toolkits")



def _type_errors(text: str) -> list[str]:
    [instruction] = parse_template(text + ";", extended=False).instructions
    verdict = grammar.check(instruction, resolve)
    return [i.message for i in verdict.issues if i.kind == "type"]


_SPARSE_FP8 = ("mma.sp.sync.aligned.m16n8k64.row.col.f32.e4m3.e4m3.f32 {%f0, %f1, %f2, %f3}, "
               "{%r0, %r1, %r2, %r3}, {%r4, %r5, %r6, %r7}, {%f4, %f5, %f6, %f7},")

# (the toolkit whose ptxas measured it, the instruction)
REJECTED = [
    ("13.0", "add.f16x2 %u1, %r2, %r3"),
    ("13.0", "add.f16x2 %r1, %s2, %r3"),
    ("13.0", "add.rn.bf16x2 %u1, %r2, %r3"),
    ("13.0", "add.bf16x2 %hx1, %r2, %r3"),
    ("13.0", "fma.rn.f16x2 %u1, %r2, %r3, %r4"),
    ("13.0", "add.u16x2 %u1, %r2, %r3"),
    ("13.0", "add.f32x2 %ul1, %rd2, %rd3"),
    ("13.0", "add.f32x2 %rd1, %sl2, %rd3"),
    ("13.0", "cvt.rn.f16x2.f32 %u1, %f1, %f2"),
    ("13.0", "cvt.rna.tf32.f32 %u1, %f1"),
    ("13.0", "cvt.rn.satfinite.e4m3x2.f32 %us1, %f1, %f2"),
    ("13.5", "mul.e4m3x4.e4m3x4.e4m3x4 %u1, %r2, %r3"),
    ("13.5", "mul.e4m3x4.e4m3x4.e4m3x4 %r1, %s2, %r3"),
    ("13.5", "mul.e4m3x4.e4m3x4.e4m3x4 %r1, %r2, %hx3"),
    ("13.5", "mul.e4m3x4.e2m1x4.e4m3x4 %r1, %us2, %r3"),
    ("13.5", "fma.e4m3x4.e4m3x4.e4m3x4 %r1, %r2, %r3, %u1"),
    ("13.5", "add.e4m3x4.e2m1x4 %r1, %h1, %s3"),
    ("13.5", "sub.e5m2x4.e4m3x4 %s1, %r2, %r3"),
    # .bf16 as the packs: a .b16 register only
    ("13.0", "setp.eq.bf16 %p1, %hf2, %h3"),
    ("13.0", "add.rn.bf16 %us1, %h2, %h3"),
    ("13.0", "cvt.rn.bf16.f32 %hf1, %f2"),
    ("13.0", "cvt.rn.bf16.f32 %us1, %f2"),
    ("13.0", "cvt.f32.bf16 %f1, %ss2"),
    # a float side of cvt takes no integer register (its operands are of exactly their size)
    ("13.0", "cvt.f32.f16 %f1, %us1"),
    ("13.0", "cvt.rn.f16.f32 %us1, %f1"),
    ("13.0", "cvt.f32.f16 %u1, %h1"),
    # the mixed-precision .bf16 input and tcgen05.commit's CTA mask: 16-bit integers, no .f16
    ("13.0", "add.f32.bf16 %f1, %hf2, %f3"),
    ("13.0", "fma.rn.f32.bf16 %f1, %h2, %hf3, %f4"),
    ("13.0", "tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster"
             ".multicast::cluster.b64 [%rd0], %hf1"),
    # a packed register for an integer operand of a type the instruction fixes
    ("13.0", "popc.b32 %hx1, %r2"),
    ("13.0", "clz.b64 %hx1, %rd2"),
    ("13.0", "shl.b32 %r1, %r2, %hx3"),
    ("13.0", "bfe.s32 %r1, %r2, %r3, %hx4"),
    ("13.0", "bar.sync %hx1"),
    ("13.0", "cp.async.bulk.shared::cta.global.mbarrier::complete_tx::bytes [%rd1], [%rd2], "
             "%hx3, [%rd4]"),
]
TAKEN = [
    ("13.0", "add.f16x2 %hx1, %hx2, %r3"),
    ("13.0", "add.f16x2 %r1, %r2, %r3"),
    ("13.0", "add.u32 %u1, %r2, %s3"),
    ("13.5", "mul.e4m3x4.e2m1x4.e4m3x4 %r1, %h2, %r3"),
    ("13.5", "fma.e4m3x4.e4m3x4.e4m3x4 %r1, %r2, %r3, %r4"),
    ("13.0", "cvt.rn.bf16.f32 %h1, %f2"),
    ("13.0", "cvt.rn.f16.f32 %hf1, %f1"),
    ("13.0", "cvt.rzi.s32.f32 %s1, %f2"),
    # a vector is judged as a whole: a typed element beside a bit register is taken
    ("13.0", "red.add.noftz.v2.f16x2 [%rd1], {%u0, %r1}"),
    # a packed register for an integer operand of the instruction's type or one derived from
    # it, and for a bit one
    ("13.0", "add.sat.s32 %r1, %hx2, %r3"),
    ("13.0", "mul.wide.u16 %hx1, %h2, %h3"),
    ("13.0", "mad.wide.s16 %r1, %h2, %h3, %hx4"),
    ("13.0", "lop3.b32 %r1, %hx2, %r3, %r4, 1"),
    ("13.0", "cvt.pack.sat.u16.s32 %hx1, %r2, %r3"),
    # a 16-bit integer register for the mixed-precision .bf16 input and the CTA mask
    ("13.0", "add.f32.bf16 %f1, %us2, %f3"),
    ("13.0", "fma.rn.sat.f32.bf16 %f1, %ss2, %h3, %f4"),
    ("13.0", "tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster"
             ".multicast::cluster.b64 [%rd0], %ss1"),
    # ... and for the sparse fp8 metadata, as an integer one
    ("13.0", f"{_SPARSE_FP8} %hx5, 0"),
    ("13.0", f"{_SPARSE_FP8} %u5, 0"),
]


@pytest.mark.parametrize(("toolkit", "text"), REJECTED)
def test_an_integer_register_for_a_packed_operand_is_a_type_error(toolkit: str, text: str
                                                                    ) -> None:
    assert _type_errors(text)


@pytest.mark.parametrize(("toolkit", "text"), TAKEN)
def test_a_bit_register_or_one_of_the_packs_own_type_is_taken(toolkit: str, text: str) -> None:
    assert _type_errors(text) == []


def _ptxas(toolkit: str) -> str | None:
    if toolkit == "13.0":
        return PTXAS
    return toolkits.found().get(toolkit)


@pytest.mark.parametrize(("toolkit", "text", "taken"),
                         [(k, t, False) for k, t in REJECTED] + [(k, t, True) for k, t in TAKEN])
def test_ptxas_agrees(toolkit: str, text: str, taken: bool) -> None:
    ptxas = _ptxas(toolkit)
    if ptxas is None:
        pytest.skip(f"no ptxas of CUDA {toolkit}")
    version, target = ("9.4", "sm_100a") if toolkit == "13.5" else ("8.8", "sm_100a")
    result = assemble(ptxas, version, target, text, 8)
    assert result.ok == taken, result.stderr
    if not taken:
        assert "Arguments mismatch" in result.stderr
