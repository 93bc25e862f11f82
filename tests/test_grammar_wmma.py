"""wmma.load/store/mma forms (grammar_data_tensor.py): fragment lengths per shape, matrix and
type as ptxas 13.0 counts them, per-type targets, and what stays unjudged."""

from __future__ import annotations

from ptxlint.ptx import grammar
from tests.grammar_probe import judge, register_resolver
from tests.grammar_probe import vector as _vec

_PREFIX = {"%rd": "b64", "%fd": "f64", "%r": "b32", "%f": "f32", "%p": "pred", "%h": "b16"}

_resolve = register_resolver(_PREFIX)


def verdict(text: str) -> grammar.Verdict:
    return judge(text, _resolve)


def test_fragment_lengths_follow_shape_matrix_and_type() -> None:
    load = "wmma.load.{m}.sync.aligned.row.{shape}.shared.{t} {regs}, [%rd1], %r9;"
    for m, shape, t, n in (("a", "m16n16k16", "f16", 8), ("a", "m16n16k16", "s8", 2),
                           ("a", "m8n32k16", "s8", 1), ("b", "m8n32k16", "s8", 4),
                           ("a", "m32n8k16", "bf16", 8), ("b", "m32n8k16", "bf16", 2),
                           ("c", "m16n16k16", "f16", 4), ("a", "m16n16k8", "tf32", 4)):
        text = load.format(m=m, shape=shape, t=t, regs=_vec("%r", n))
        assert verdict(text).status == "ok", text
        short = load.format(m=m, shape=shape, t=t, regs=_vec("%r", n + 1))
        assert verdict(short).status == "error", short
    c32 = verdict(f"wmma.load.c.sync.aligned.col.m16n16k16.global.f32 {_vec('%f', 8)}, [%rd1];")
    assert c32.status == "ok" and c32.need.sm == 70
    assert verdict(f"wmma.load.c.sync.aligned.row.m8n8k4.f64 {_vec('%fd', 2)}, [%rd1];"
                   ).need.sm == 80


def test_mma_types_layouts_and_targets() -> None:
    f16 = verdict(f"wmma.mma.sync.aligned.row.col.m16n16k16.f32.f16 {_vec('%f', 8)}, "
                  f"{_vec('%r', 8)}, {_vec('%r', 8)}, {_vec('%r', 4)};")
    assert f16.status == "ok" and f16.need.sm == 70
    s8 = verdict(f"wmma.mma.sync.aligned.row.col.m16n16k16.s32.s8.s8.s32.satfinite "
                 f"{_vec('%r', 8)}, {_vec('%r', 2)}, {_vec('%r', 2)}, {_vec('%r', 8)};")
    assert s8.status == "ok" and s8.need.sm == 72
    # a and b of one type, the sub-byte shapes row.col only
    assert verdict(f"wmma.mma.sync.aligned.row.col.m16n16k16.s32.s8.u8.s32 {_vec('%r', 8)}, "
                   f"{_vec('%r', 2)}, {_vec('%r', 2)}, {_vec('%r', 8)};").status == "error"
    assert verdict("wmma.mma.sync.aligned.row.col.m8n8k32.s32.s4.s4.s32 {%r0, %r1}, {%r2}, "
                   "{%r3}, {%r4, %r5};").need.sm == 75
    assert verdict("wmma.mma.sync.aligned.col.col.m8n8k32.s32.s4.s4.s32 {%r0, %r1}, {%r2}, "
                   "{%r3}, {%r4, %r5};").status == "error"
    assert verdict("wmma.mma.and.popc.sync.aligned.row.col.m8n8k128.s32.b1.b1.s32 {%r0, %r1}, "
                   "{%r2}, {%r3}, {%r4, %r5};").need.sm == 80


def test_what_ptxas_reads_by_rules_of_its_own_is_not_judged() -> None:
    u32 = (f"wmma.mma.sync.aligned.row.col.m16n16k16.s32.s8.u8.u32 {_vec('%r', 8)}, "
           f"{_vec('%r', 2)}, {_vec('%r', 2)}, {_vec('%r', 8)};")
    assert verdict(u32).status == "abstain"
    assert verdict("wmma.mma.sync.aligned.row.col.m8n32k16.s32.u4.u4.s32 {%r0, %r1}, {%r2}, "
                   "{%r3}, {%r4, %r5};").status == "abstain"
    # .f32 for the sub-byte shapes' accumulator: ptxas takes it, the ISA does not say so
    sub = verdict("wmma.load.c.sync.aligned.row.m8n8k32.f32 {%r0, %r1}, [%rd1];")
    assert sub.status == "ok" and sub.issues and sub.issues[0].severity == "warning"


def test_an_extra_type_word_ptxas_takes_is_not_judged() -> None:
    # ptxas 13.0 assembles these (the .tf32 on a sub-byte shape's accumulator, a sub-byte type
    # beside mma's .f64 ones) and rejects the same word elsewhere: neither said, nor judged
    assert verdict("wmma.store.d.sync.aligned.row.m8n8k128.tf32.f32 [%rd1], {%f0, %f1};"
                   ).status == "abstain"
    assert verdict("mma.sync.aligned.m8n8k4.row.col.u4.f64.f64.f64.f64 {%rd8, %rd9}, {%rd0}, "
                   "{%rd8}, {%rd0, %rd1};").status == "abstain"
    # (the spelling of another shape stays judged: 'Unexpected instruction types')
    assert verdict("wmma.store.d.sync.aligned.row.m16n16k16.tf32.f32 [%rd1], "
                   f"{_vec('%f', 8)};").status == "error"
