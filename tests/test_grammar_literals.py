"""Literals as operands: which class of immediate (integer, .f32 bit pattern, .f64 value) each
operand takes, as ptxas 13.0 has it (each case below was assembled with ptxas 13.0; the
benchmark's register-as-immediate and literal-class mutations cover every family)."""

from __future__ import annotations

import pytest

from ptxlint.ptx.grammar import OperandClass, immediate_class, literal_fits
from tests.grammar_probe import judge, register_resolver

_PREFIX = {"%rd": "b64", "%fd": "f64", "%r": "b32", "%f": "f32", "%p": "pred", "%h": "b16",
           "%q": "b128"}

_resolve = register_resolver(_PREFIX)


def status(text: str) -> str:
    return judge(text, _resolve).status


def message(text: str) -> str:
    verdict = judge(text, _resolve)
    return verdict.issues[0].message if verdict.issues else ""


def test_literal_classes() -> None:
    assert immediate_class("1") == OperandClass("imm", "int", 1)
    assert immediate_class("0x10U") == OperandClass("imm", "int", 16)
    assert immediate_class("0f3F800000").type == "f32"
    assert immediate_class("0F3F800000").type == "f32"
    assert immediate_class("0d3FF0000000000000").type == "f64"
    for text in ("1.0", "-1.5", "1.", "1e3", "2.5E-3"):
        assert immediate_class(text).type == "f64", text
    # a bit pattern of the wrong length is no literal ptxas knows: not classified
    assert immediate_class("0f3F80").type is None


@pytest.mark.parametrize(("literal", "operand", "fits"), [
    ("int", "u32", True), ("int", "b64", True), ("int", "pred", True),
    ("int", "f32", False), ("int", "f64", False), ("int", "f16", False),
    ("int", "bf16x2", False), ("int", "u16x2", False),
    ("f32", "f32", True), ("f64", "f32", True), ("f32", "f64", True),
    ("f32", "b32", True), ("f64", "b32", False), ("f64", "b64", True), ("f32", "b64", False),
    ("f32", "b16", False), ("f32", "u32", False), ("f64", "s64", False), ("f32", "f16", False),
    ("f32", "f16x2", False), ("f64", "int", False), ("int", "int", True),
])
def test_literal_fits(literal: str, operand: str, fits: bool) -> None:
    assert literal_fits(literal, operand) is fits


def test_float_and_integer_literals_per_type() -> None:
    assert status("add.f32 %f1, %f2, 1.0;") == "ok"
    assert status("add.f32 %f1, %f2, 0f3F800000;") == "ok"
    assert status("add.f64 %fd1, %fd2, 0f3F800000;") == "ok"
    assert "write a floating-point literal" in message("add.f32 %f1, %f2, 1;")
    assert status("add.u32 %r1, %r2, 1.0;") == "error"
    assert status("add.u32 %r1, %r2, 0f3F800000;") == "error"
    assert status("mov.b32 %r1, 0f3F800000;") == "ok"
    assert status("mov.b32 %r1, 1.0;") == "error"  # a decimal literal is 64-bit
    assert status("mov.b64 %rd1, 1.0;") == "ok"
    assert status("mov.b64 %rd1, 0f3F800000;") == "error"
    assert "takes no immediate" in message("add.f16x2 %r1, %r2, 1;")
    assert status("setp.eq.f32 %p1, %f1, 1;") == "error"
    assert status("bar.sync 1.0;") == "error"  # an integer immediate only
    assert status("isspacep.global %p1, 1.0;") == "error"


def test_descriptors_take_integer_immediates_only() -> None:
    wgmma = "wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 {%f0, %f1, %f2, %f3}, "
    assert status(f"{wgmma}%rd1, %rd2, %p1, 1, 1, 0, 0;") == "ok"
    assert status(f"{wgmma}0, 0x4000, %p1, 1, 1, 0, 0;") == "ok"
    assert "integer immediate" in message(f"{wgmma}1.0, %rd2, %p1, 1, 1, 0, 0;")
    assert status(f"{wgmma}%rd1, 0d3FF0000000000000, %p1, 1, 1, 0, 0;") == "error"
    assert status(f"{wgmma}%fd1, %rd2, %p1, 1, 1, 0, 0;") == "error"  # an .f64 register
    mma = "tcgen05.mma.cta_group::1.kind::f16 [%r1], "
    assert status(f"{mma}%rd2, %rd3, %r4, %p5;") == "ok"
    assert status(f"{mma}1.0, %rd3, %r4, %p5;") == "error"
    assert status(f"{mma}%rd2, 1.0, %r4, %p5;") == "error"
    assert status("tcgen05.cp.cta_group::1.128x256b [%r1], 1.0;") == "error"
    assert status("mbarrier.try_wait.b64 %p1, [%rd2], 1.0;") == "error"
    assert status("mbarrier.try_wait.b64 %p1, [%rd2], 0;") == "ok"


def test_cache_policies_take_an_integer_immediate() -> None:
    assert status("ld.global.L2::cache_hint.b32 %r1, [%rd2], 5;") == "ok"
    assert status("ld.global.L2::cache_hint.b32 %r1, [%rd2], 1.0;") == "error"
    assert status("ld.global.L2::cache_hint.b32 %r1, [%rd2], %fd1;") == "error"
    assert status("cp.async.cg.shared.global.L2::cache_hint [%rd1], [%rd2], 16, 1;") == "ok"
    assert status("red.add.L2::cache_hint.u32 [%rd1], %r2, 1;") == "ok"


def test_metadata_and_scale_operands_take_a_bit_pattern_not_an_integer() -> None:
    sp = ("mma.sp.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16 {%r8, %r9}, {%r0, %r1}, "
          "{%r8, %r9}, {%r0, %r1}, ")
    assert status(f"{sp}%r4, 0;") == "ok"
    assert status(f"{sp}0f3F800000, 0;") == "ok"
    assert "integer literal" in message(f"{sp}0, 0;")
    assert status(f"{sp}1.0, 0;") == "error"
    assert status("movmatrix.sync.aligned.m8n8.trans.b16 %r1, 1;") == "error"
    assert status("movmatrix.sync.aligned.m8n8.trans.b16 %r1, 0f3F800000;") == "ok"


def test_immediates_ptxas_bounds() -> None:
    assert status("bar.sync 1, 64;") == "ok"
    assert "multiple of 32" in message("bar.sync 1, 48;")
    # ptxas 13.0: "Instruction 'bar.arrive' requires a non-zero thread count argument"; a
    # sync's count may be 0 (and -32 assembles for either)
    for arrive in ("bar.arrive", "barrier.arrive", "bar.cta.arrive", "barrier.cta.arrive.aligned"):
        assert "a multiple of 32 other than 0" in message(f"{arrive} 1, 0;")
        assert status(f"{arrive} 1, 32;") == status(f"{arrive} 1, -32;") == "ok"
    assert status("bar.sync 1, 0;") == "ok"
    assert status("barrier.red.popc.u32 %r1, 1, 1, %p1;") == "error"
    bulk = "cp.async.bulk.shared::cta.global.mbarrier::complete_tx::bytes [%rd1], [%rd2], "
    assert status(f"{bulk}1024, [%rd4];") == "ok"
    assert status(f"{bulk}8, [%rd4];") == "error"
    assert status(f"{bulk}1048576, [%rd4];") == "error"
    assert status("cp.async.bulk.prefetch.L2.global [%rd1], 8;") == "error"
    # ptxas 13.0: "unexpected value '250', expected to be multiple of 8" (the ISA: 24..256,
    # a multiple of 8); the agreement matrix's inner-immediate probes found the stride
    assert status("setmaxnreg.inc.sync.aligned.u32 248;") == "ok"
    assert "a multiple of 8" in message("setmaxnreg.inc.sync.aligned.u32 250;")
    assert "a multiple of 8" in message("setmaxnreg.dec.sync.aligned.u32 25;")
    assert status("st.bulk [%rd1], 8, 0;") == "ok"
    assert status("st.bulk [%rd1], 4, 0;") == "error"
    assert status("redux.sync.add.u32 %r1, 1, %r3;") == "ok"  # the source may be a constant
    assert status("cvt.rs.f16x2.f32 %r1, %f2, %f3, 1;") == "error"  # random bits: a register
    assert status("atom.cas.b128 %q1, [%rd2], 1, %q3;") == "ok"
    assert status("atom.cas.b128 %q1, [%rd2], %q3, 1;") == "error"


def test_mixed_precision_bf16_takes_an_integer_literal() -> None:
    # ptxas 13.0 takes `1` for the .bf16 input of the sm_100 mixed forms, not for the .f16 one
    assert status("add.f32.bf16 %f1, 1, %f3;") == "ok"
    assert status("add.f32.f16 %f1, 1, %f3;") == "error"
    assert status("fma.rn.f32.bf16 %f1, %h2, 1, %f4;") == "ok"
