"""The effects table answers per family as the PTX ISA says."""

from __future__ import annotations

from ptxlint.ptx.effects import SPECIAL_REGISTERS, Writes, lookup, written_refs
from ptxlint.ptx.parser import parse_template


def _effects(mnemonic: str):
    opcode, *mods = mnemonic.split(".")
    effects = lookup(opcode, tuple(mods))
    assert effects is not None, mnemonic
    return effects


def test_read_only_loads_are_pure_and_plain_loads_read_memory() -> None:
    for m in ("ld.global.nc.f32", "ld.global.cg.nc.v4.u32", "ld.const.u32", "ldu.global.f32"):
        assert _effects(m).pure, m
    assert _effects("ld.global.u32").memory == "read"
    assert not _effects("ld.global.u32").side_effect


def test_stores_atomics_barriers_and_collectives_have_side_effects() -> None:
    for m in (
        "st.global.u32",
        "atom.global.add.u32",
        "red.global.add.u32",
        "bar.sync",
        "membar.gl",
        "fence.acq_rel.gpu",
        "cp.async.ca.shared.global",
        "cp.async.wait_group",
        "shfl.sync.bfly.b32",
        "vote.sync.ballot.b32",
        "activemask.b32",
        "elect.sync",
        "nanosleep.u32",
        "trap",
        "setmaxnreg.inc.sync",
    ):
        assert _effects(m).side_effect, m


def test_pure_families() -> None:
    for m in (
        "add.s32",
        "fma.rn.f32",
        "cvt.rn.f16x2.f32",
        "prmt.b32",
        "lop3.b32",
        "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32",
        "mov.b64",
    ):
        assert _effects(m).pure, m


def test_sub_operation_is_anchored() -> None:
    assert _effects("mbarrier.arrive.expect_tx.shared.b64").writes is Writes.FIRST
    assert _effects("mbarrier.expect_tx.shared.b64").writes is Writes.NONE
    assert _effects("bar.red.popc.u32").writes is Writes.FIRST
    assert _effects("bar.sync").writes is Writes.NONE


def test_special_registers() -> None:
    for name in (
        "clock",
        "clock64",
        "globaltimer",
        "globaltimer_lo",
        "smid",
        "warpid",
        "pm3",
        "pm7_64",
    ):
        assert SPECIAL_REGISTERS[name].changes, name
    for name in (
        "tid",
        "ntid",
        "laneid",
        "ctaid",
        "nctaid",
        "lanemask_lt",
        "nsmid",
        "dynamic_smem_size",
    ):
        assert not SPECIAL_REGISTERS[name].changes, name


def test_written_refs() -> None:
    def refs(text: str) -> list[set[int] | None]:
        return [written_refs(i) for i in parse_template(text, extended=True).instructions]

    assert refs("mov.b64 {%0, %1}, %2;") == [{0, 1}]
    assert refs("st.global.u32 [%0], %1;") == [set()]
    assert refs("atom.global.add.u32 %0, [%1], %2;") == [{0}]
    assert refs("shfl.sync.up.b32 %0|p, %1, 1, 0, -1;") == [{0}]
    assert refs("tcgen05.ld.red.sync.aligned.32x32b.x2.u32.min {%0, %1}, %2, [%3];") == [{0, 1, 2}]
    assert refs("call (%0), f, (%1);") == [None]
