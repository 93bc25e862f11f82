"""The PTX instruction table: accepted spellings, minimum targets, operand types."""

from __future__ import annotations

import glob
import os
import re
from pathlib import Path

import pytest

from ptxlint.engine import extract_statements
from ptxlint.model import SourceFile
from ptxlint.ptx.instructions import (
    REGISTER_CLASSES,
    TypeInfo,
    deprecation,
    family,
    is_opcode,
    operand_types,
    register_fits,
    requirement,
    type_info,
    unknown_modifier,
)
from scripts.locations import cuda_include


def ok(mnemonic: str) -> bool:
    opcode, *mods = mnemonic.split(".")
    # The parser keeps `::` inside a modifier; splitting on "." does the same.
    return is_opcode(opcode) and unknown_modifier(opcode, tuple(mods)) is None


# One or more real forms per family (PTX ISA 9.x), and typos that must be rejected.
FORMS = {
    "add": [
        "add.u32",
        "add.cc.s64",
        "add.sat.s32",
        "add.rn.ftz.f32",
        "add.f16x2",
        "add.bf16",
        "add.rn.f32x2",
        "add.s16x2",
    ],
    "sub": ["sub.f64", "sub.cc.u32"],
    "mul": ["mul.lo.u32", "mul.hi.s64", "mul.wide.u16", "mul.rn.f32", "mul.f16x2"],
    "mad": ["mad.lo.s32", "mad.wide.u32", "mad.rn.f64", "mad.hi.cc.u32"],
    "addc": ["addc.cc.u32"],
    "div": ["div.approx.f32", "div.rn.ftz.f32", "div.full.f32", "div.s32"],
    "rem": ["rem.u64"],
    "abs": ["abs.s32", "abs.ftz.f32", "abs.bf16x2"],
    "min": ["min.u32", "min.NaN.f16x2", "min.xorsign.abs.bf16", "min.s16x2", "min.relu.s32"],
    "popc": ["popc.b64"],
    "bfind": ["bfind.shiftamt.u32"],
    "bfe": ["bfe.u32"],
    "bfi": ["bfi.b64"],
    "bmsk": ["bmsk.clamp.b32"],
    "szext": ["szext.wrap.s32"],
    "dp4a": ["dp4a.u32.s32"],
    "dp2a": ["dp2a.lo.s32.u32"],
    "fma": ["fma.rn.f32", "fma.rn.relu.bf16x2", "fma.rn.oob.f16", "fma.rz.sat.f32"],
    "rcp": ["rcp.approx.ftz.f64", "rcp.rn.f32"],
    "sqrt": ["sqrt.approx.f32"],
    "ex2": ["ex2.approx.ftz.f32", "ex2.approx.f16x2"],
    "tanh": ["tanh.approx.f32"],
    "testp": ["testp.finite.f32"],
    "setp": ["setp.ne.b32", "setp.lt.and.f32", "setp.gtu.ftz.f32", "setp.eq.s64"],
    "set": ["set.eq.u32.f32", "set.lt.f16x2.f16x2"],
    "selp": ["selp.b32"],
    "lop3": ["lop3.b32"],
    "shf": ["shf.l.wrap.b32", "shf.r.clamp.b32"],
    "shl": ["shl.b64"],
    "shr": ["shr.s32"],
    "mov": ["mov.b32", "mov.u64", "mov.pred", "mov.b128"],
    "shfl": ["shfl.sync.idx.b32", "shfl.sync.bfly.b32"],
    "prmt": ["prmt.b32", "prmt.b32.f4e"],
    "ld": [
        "ld.global.nc.v4.f32",
        "ld.shared::cta.u32",
        "ld.global.L1::evict_last.u32",
        "ld.acquire.gpu.global.b32",
        "ld.volatile.shared.u16",
        "ld.global.L2::cache_hint.b64",
        "ld.global.v8.f32",
        "ld.global.nc.L1::no_allocate.L2::256B.v4.s32",
        "ld.relaxed.cluster.shared::cluster.u64",
        "ld.param.u64",
        "ld.local.b8",
    ],
    "ldu": ["ldu.global.v2.f32"],
    "st": [
        "st.global.wb.u32",
        "st.release.sys.global.b32",
        "st.async.shared::cluster.mbarrier::complete_tx::bytes.b64",
        "st.bulk.weak.shared::cta",
        "st.global.v4.b32",
        "st.global.L1::no_allocate.v4.s32",
    ],
    "prefetch": ["prefetch.global.L2::evict_last", "prefetch.tensormap", "prefetch.L1"],
    "cvta": ["cvta.to.shared.u64", "cvta.shared.u32"],
    "cvt": [
        "cvt.rn.f32.f64",
        "cvt.rzi.s32.f32",
        "cvt.rn.satfinite.e4m3x2.f32",
        "cvt.rna.tf32.f32",
        "cvt.rn.bf16x2.f32",
        "cvt.u8.u32",
        "cvt.pack.sat.s8.s32.b32",
        "cvt.rn.f16x2.e4m3x2",
        "cvt.rn.satfinite.ue8m0x2.f32",
        "cvt.rs.satfinite.e2m1x4.f32",
    ],
    "mapa": ["mapa.shared::cluster.u32"],
    "getctarank": ["getctarank.shared::cluster.u32"],
    "createpolicy": ["createpolicy.fractional.L2::evict_last.b64"],
    "isspacep": ["isspacep.shared::cluster"],
    "cp": [
        "cp.async.ca.shared.global",
        "cp.async.cg.shared.global.L2::128B",
        "cp.async.commit_group",
        "cp.async.wait_group",
        "cp.async.mbarrier.arrive.noinc.shared.b64",
        "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes",
        "cp.async.bulk.tensor.3d.shared::cluster.global.mbarrier::complete_tx::bytes",
        "cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group",
        "cp.async.bulk.tensor.4d.shared::cluster.global.im2col.mbarrier::complete_tx::bytes.multicast::cluster",
        "cp.reduce.async.bulk.global.shared::cta.bulk_group.add.f32",
        "cp.async.bulk.prefetch.L2.global",
        "cp.async.bulk.wait_group.read",
        "cp.async.bulk.tensor.2d.shared::cluster.global.tile::gather4.mbarrier::complete_tx::bytes.cta_group::2",
    ],
    "multimem": [
        "multimem.ld_reduce.relaxed.sys.global.add.f32",
        "multimem.st.release.gpu.global.v4.f32",
        "multimem.red.relaxed.sys.global.add.u32",
        "multimem.ld_reduce.global.add.acc::f32.v4.bf16x2",
    ],
    "tensormap": [
        "tensormap.replace.tile.global_address.shared::cta.b1024.b64",
        "tensormap.cp_fenceproxy.global.shared::cta.tensormap::generic.release.gpu.sync.aligned",
    ],
    "bra": ["bra.uni"],
    "bar": ["bar.sync", "bar.warp.sync", "bar.arrive", "bar.red.popc.u32"],
    "barrier": [
        "barrier.sync.aligned",
        "barrier.cluster.arrive.release.aligned",
        "barrier.cluster.wait.acquire",
    ],
    "membar": ["membar.gl", "membar.cta", "membar.sys"],
    "fence": [
        "fence.acq_rel.gpu",
        "fence.proxy.async.shared::cta",
        "fence.proxy.tensormap::generic.release.gpu",
        "fence.mbarrier_init.release.cluster",
        "fence.proxy.alias",
        "fence.sc.cluster",
        "fence.proxy.async::generic.acquire.sync_restrict::shared::cluster.cluster",
    ],
    "atom": [
        "atom.global.add.u32",
        "atom.cas.b64",
        "atom.shared.exch.b32",
        "atom.acq_rel.gpu.global.max.s32",
        "atom.global.add.noftz.bf16x2",
        "atom.global.v4.f32.add",
        "atom.global.cas.b128",
    ],
    "red": [
        "red.global.add.f32",
        "red.release.gpu.global.add.u64",
        "red.async.relaxed.cluster.shared::cluster.mbarrier::complete_tx::bytes.add.u32",
    ],
    "vote": ["vote.sync.ballot.b32", "vote.sync.any.pred"],
    "match": ["match.any.sync.b64"],
    "activemask": ["activemask.b32"],
    "redux": ["redux.sync.add.u32", "redux.sync.max.abs.NaN.f32"],
    "griddepcontrol": ["griddepcontrol.wait", "griddepcontrol.launch_dependents"],
    "elect": ["elect.sync"],
    "mbarrier": [
        "mbarrier.init.shared::cta.b64",
        "mbarrier.arrive.expect_tx.release.cluster.shared::cluster.b64",
        "mbarrier.try_wait.parity.shared::cta.b64",
        "mbarrier.test_wait.acquire.cta.shared::cta.b64",
        "mbarrier.arrive.noComplete.shared.b64",
        "mbarrier.pending_count.b64",
        "mbarrier.expect_tx.relaxed.cluster.shared::cluster.b64",
        "mbarrier.arrive_drop.shared.b64",
    ],
    "nanosleep": ["nanosleep.u32"],
    "clusterlaunchcontrol": [
        "clusterlaunchcontrol.try_cancel.async.shared::cta.mbarrier::complete_tx::bytes.b128",
        "clusterlaunchcontrol.query_cancel.get_first_ctaid::x.b32.b128",
    ],
    "setmaxnreg": ["setmaxnreg.inc.sync.aligned.u32"],
    "wmma": [
        "wmma.load.a.sync.aligned.row.m16n16k16.f16",
        "wmma.mma.sync.aligned.row.col.m16n16k16.f32.f32",
    ],
    "mma": [
        "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32",
        "mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64",
        "mma.sp::ordered_metadata.sync.aligned.m16n8k32.row.col.f32.f16.f16.f32",
        "mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f32.e2m1.e4m3.f32",
        "mma.sync.aligned.m16n8k64.row.col.kind::mxf4.block_scale.scale_vec::2X.f32.e2m1.e2m1.f32.ue8m0",
        "mma.sync.aligned.m16n8k256.row.col.s32.b1.b1.s32.and.popc",
    ],
    "ldmatrix": [
        "ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16",
        "ldmatrix.sync.aligned.m16n16.x1.trans.shared.b8x16.b4x16_p64",
    ],
    "stmatrix": [
        "stmatrix.sync.aligned.m8n8.x4.shared.b16",
        "stmatrix.sync.aligned.m16n8.x2.trans.shared.b8",
    ],
    "movmatrix": ["movmatrix.sync.aligned.m8n8.trans.b16"],
    "wgmma": [
        "wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16",
        "wgmma.fence.sync.aligned",
        "wgmma.commit_group.sync.aligned",
        "wgmma.wait_group.sync.aligned",
        "wgmma.mma_async.sp.sync.aligned.m64n128k64.f32.e4m3.e5m2",
        "wgmma.mma_async.sync.aligned.m64n8k32.s32.u8.s8.satfinite",
    ],
    "tcgen05": [
        "tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32",
        "tcgen05.ld.sync.aligned.32x32b.x128.b32",
        "tcgen05.ld.red.sync.aligned.32x32b.x2.min.abs.f32",
        "tcgen05.mma.cta_group::2.kind::mxf8f6f4.block_scale.scale_vec::1X",
        "tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.multicast::cluster.b64",
        "tcgen05.cp.cta_group::1.128x256b.b8x16.b6x16_p32",
        "tcgen05.shift.cta_group::1.down",
        "tcgen05.wait::ld.sync.aligned",
        "tcgen05.fence::before_thread_sync",
        "tcgen05.mma.ws.cta_group::1.kind::i8.collector::b0::fill",
    ],
    "video": [
        "vadd.s32.u32.s32.sat",
        "vadd2.u32.u32.u32.add",
        "vset4.u32.u32.ne",
        "vmad.s32.u32.s32.shr15",
    ],
    "texture": [
        "tex.2d.v4.f32.f32",
        "tld4.r.2d.v4.s32.f32",
        "txq.width.b32",
        "suld.b.2d.v4.b32.trap",
        "sust.b.1d.b32.clamp",
    ],
    "misc": [
        "trap",
        "exit",
        "brkpt",
        "ret.uni",
        "pmevent.mask",
        "alloca.u64",
        "stacksave.u64",
        "discard.global.L2",
        "applypriority.global.L2::evict_normal",
        "istypep.texref",
    ],
}

TYPOS = [
    "mul.lo.u23",
    "add.f33",
    "ld.globl.f32",
    "ld..f32",
    "shfl.sync.idxx.b32",
    "cp.async.ca.shared.gloabl",
    "mbarrier.try_wait.parity.nosleep.shared.b64",
    "fence.proxy.async.global::cta",
    "mbarrier.arrive.expect_copy.shared.b64",
    "atom.shared.arrive.b64",
    "st.globl.u32",
    "wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16.bogus",
    "cvt.rn.f32.s23",
    "setp.eqq.s32",
    "ldmatrix.sync.aligned.m8n8.x4.trans.shard.b16",
    "mov.u31",
    "tcgen05.alloc.cta_group::3.sync.aligned.shared::cta.b32",
]


@pytest.mark.parametrize("group", sorted(FORMS))
def test_real_forms_are_accepted(group: str) -> None:
    rejected = [m for m in FORMS[group] if not ok(m)]
    assert rejected == []


@pytest.mark.parametrize("mnemonic", TYPOS)
def test_typos_are_rejected(mnemonic: str) -> None:
    assert not ok(mnemonic)


def test_unknown_opcode() -> None:
    assert not is_opcode("setctarank")
    assert family("add") is not None and family("setctarank") is None
    assert unknown_modifier("setctarank", ("shared",)) is None  # unknown family: no verdict


@pytest.mark.parametrize(
    ("mnemonic", "sm", "suffix"),
    [
        ("cp.async.ca.shared.global", 80, ""),
        ("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes", 90, ""),
        ("ldmatrix.sync.aligned.m8n8.x4.shared.b16", 75, ""),
        ("redux.sync.add.u32", 80, ""),
        ("elect.sync", 90, ""),
        ("mbarrier.try_wait.parity.shared::cta.b64", 90, ""),
        ("ld.shared::cluster.u32", 90, ""),
        ("wgmma.fence.sync.aligned", 90, "a"),
        ("setmaxnreg.inc.sync.aligned.u32", 90, "a"),
        ("tcgen05.fence::before_thread_sync", 100, "f"),  # the sm_100 family (ptxas 13.0)
        ("add.u32", 0, ""),
        ("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32", 80, ""),
        ("mma.sync.aligned.m8n8k4.row.col.f32.f16.f16.f32", 70, ""),
    ],
)
def test_requirements(mnemonic: str, sm: int, suffix: str) -> None:
    opcode, *mods = mnemonic.split(".")
    need = requirement(opcode, tuple(mods))
    assert (need.sm, need.suffix) == (sm, suffix)


def test_deprecations() -> None:
    assert deprecation("shfl", ("idx", "b32")) is not None
    assert deprecation("vote", ("ballot", "b32")) is not None
    assert deprecation("shfl", ("sync", "idx", "b32")) is None
    assert deprecation("add", ("u32",)) is None


def test_operand_types() -> None:
    add = operand_types("add", ("f64",))
    assert add is not None and add.types[0] == type_info("f64") and not add.relaxed
    cvt = operand_types("cvt", ("rn", "f32", "f64"))
    assert cvt is not None and cvt.names[:2] == ("f32", "f64") and cvt.relaxed
    wide = operand_types("mul", ("wide", "u32"))
    assert wide is not None and wide.types[0] == type_info("u64")
    assert operand_types("mma", ("sync", "aligned")) is None
    assert operand_types("cvt", ("rn", "satfinite", "e4m3x2", "f32")) is None


def test_register_fits_matches_ptxas() -> None:
    r, ell, f, d, h = (REGISTER_CLASSES[c] for c in "rlfdh")

    def t(name: str) -> TypeInfo:
        info = type_info(name)
        assert info is not None
        return info

    assert register_fits(r, t("f32"), False)  # b32 register in add.f32: accepted
    assert not register_fits(f, t("u32"), False)
    assert not register_fits(r, t("s64"), False)
    assert register_fits(ell, t("f64"), False)
    assert not register_fits(h, t("u32"), False)
    assert register_fits(r, t("u8"), True)  # ld.u8 into r
    assert not register_fits(d, t("f32"), True)  # ld.f32 into d
    assert register_fits(d, t("b32"), True)  # ld.b32 into d
    assert not register_fits(f, t("f16x2"), False)


# --------------------------------------------------------------------------- CCCL cross-check

_CUDA = cuda_include()
CCCL = str(_CUDA / "cccl" / "cuda" / "__ptx" / "instructions" / "generated") if _CUDA else ""
_NOTE = re.compile(r"// PTX ISA (\d+), SM_(\d+)([a-z]?)")


def _cccl_headers() -> list[str]:
    return sorted(glob.glob(os.path.join(CCCL, "*.h")))


@pytest.mark.skipif(not os.path.isdir(CCCL), reason="no CUDA toolkit with CCCL's PTX wrappers")
def test_cccl_generated_wrappers_are_accepted_and_not_too_new() -> None:
    """Every instruction CCCL emits is a known form, and the table never asks for a newer
    target than CCCL's `// PTX ISA NN, SM_NN` note for it."""
    problems: list[str] = []
    seen = 0
    for path in _cccl_headers():
        text = Path(path).read_text(encoding="utf-8")
        notes = [(m.start(), int(m.group(2)), m.group(3)) for m in _NOTE.finditer(text)]
        for statement in extract_statements(SourceFile(path, text)).statements:
            before = [n for n in notes if n[0] < statement.span.start]
            for ins in statement.ptx.instructions:
                if ins.opaque:
                    continue
                seen += 1
                where = f"{os.path.basename(path)}:{statement.line} {ins.mnemonic}"
                if (
                    not is_opcode(ins.opcode)
                    or unknown_modifier(ins.opcode, ins.modifiers) is not None
                ):
                    problems.append(f"rejected {where}")
                    continue
                if not before:
                    continue
                _, sm, suffix = before[-1]
                need = requirement(ins.opcode, ins.modifiers)
                if need.sm > sm or (need.suffix == "a" and not suffix):
                    problems.append(
                        f"table needs {need.target}, CCCL says sm_{sm}{suffix}: {where}"
                    )
    assert seen > 1000
    assert problems == []


def test_immediates_read_like_ptxas():
    from ptxlint.ptx.grammar import parse_immediate

    # "08" is not an octal literal (a fuzz input made the grammar raise on it)
    assert parse_immediate("08") is None and parse_immediate("009") is None
    assert parse_immediate("010") == 8 and parse_immediate("0") == 0
    assert parse_immediate("0b101") == 5 and parse_immediate("0x1F") == 31
    assert parse_immediate("-0x10") == -16 and parse_immediate("16U") == 16
