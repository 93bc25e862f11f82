"""Instruction forms of the conversion, multimem, bulk-copy and tensor-map families (PTX ISA
9.x); notation in :mod:`ptxlint.ptx.grammar`, appended to ``grammar_data.FORMS``.

Sources as for :mod:`ptxlint.ptx.grammar_data`: the ISA's syntax blocks and target notes,
CCCL's generated wrappers (``cuda/__ptx/instructions/generated/{cvt,multimem,cp_async_bulk,
cp_reduce_async_bulk,tensormap,red_async,st_async}*.h``) and ptxas 13.0, which
``benchmarks/ptxas_agreement.py`` runs on every form and on mutants of each. Where ptxas and the
ISA differ, ptxas decides what is an error and an accepted spelling the ISA does not show is
``undocumented`` (a warning at most).

``PARTIAL`` (merged into ``grammar_data.PARTIAL``) names the words of these families whose
forms are not written down: an instruction with one is not judged.
"""

from __future__ import annotations

import re

FORMS: list[str] = []
_add = FORMS.append

# ----------------------------------------------------------------------------- cvt, scalar
# The ISA's rules (9.7.9.21), as ptxas 13.0 applies them: integer rounding (.rni...) is required
# from a float to an integer and allowed between floats of one size; float rounding (.rn...) is
# required from an integer to a float and for a float narrowed, and illegal anywhere else; .ftz
# goes with .f32 on either side; .sat with an integer result only where the source range does
# not fit ("Illegal modifier '.sat'" on cvt.s32.s16), and never with .bf16.
_INTS = ("u8", "u16", "u32", "u64", "s8", "s16", "s32", "s64")
_IRND = "(.rni|.rzi|.rmi|.rpi)"
_FRND = "(.rn|.rz|.rm|.rp)"


def _dots(words: tuple[str, ...] | list[str]) -> str:
    return "|".join("." + w for w in words)


def _fits(source: str, dest: str) -> bool:
    """Whether every value of integer type ``source`` is one of ``dest`` (.sat is pointless)."""
    s_signed, s_bits = source[0] == "s", int(source[1:])
    d_signed, d_bits = dest[0] == "s", int(dest[1:])
    if s_signed and not d_signed:
        return False
    if s_signed == d_signed:
        return s_bits <= d_bits
    return s_bits < d_bits  # unsigned into signed


for _d in _INTS:
    _add(f"cvt.{_d}.<A:{_dots(_INTS)}> d:{_d}, a:A")
    _saturating = [a for a in _INTS if not _fits(a, _d)]
    if _saturating:
        _add(f"cvt.sat.{_d}.<A:{_dots(_saturating)}> d:{_d}, a:A")
# integer -> float
_add(f"cvt{_FRND}{{.sat}}.<D:.f16|.f64>.<A:{_dots(_INTS)}> d:D, a:A")
_add(f"cvt{_FRND}{{.ftz}}{{.sat}}.f32.<A:{_dots(_INTS)}> d:f32, a:A")
# (.bf16 conversions take registers of exactly the operand's size, see _cvt: 8-bit integers
# then need a .b8 register, as cuda_bf16.hpp's __bfloat162char_rz declares)
_add(f"cvt{_FRND}.bf16.<A:{_dots(_INTS)}> d:bf16, a:A; sm=90; ptx=78")
# float -> integer
_add(f"cvt{_IRND}{{.sat}}.<D:{_dots(_INTS)}>.<A:.f16|.f64> d:D, a:A")
_add(f"cvt{_IRND}{{.ftz}}{{.sat}}.<D:{_dots(_INTS)}>.f32 d:D, a:f32")
_add(f"cvt{_IRND}.<D:{_dots(_INTS)}>.bf16 d:D, a:bf16; sm=90; ptx=78")
# float -> float of the same size: rounding to an integer, or none
for _t in ("f16", "f64"):
    _add(f"cvt{{{_IRND[1:-1]}}}{{.sat}}.{_t}.{_t} d:{_t}, a:{_t}")
_add(f"cvt{{{_IRND[1:-1]}}}{{.ftz}}{{.sat}}.f32.f32 d:f32, a:f32")
_add(f"cvt{{{_IRND[1:-1]}}}.bf16.bf16 d:bf16, a:bf16; sm=90; ptx=78")
# narrowing (rounding required) and widening (none)
_add(f"cvt{_FRND}{{.ftz}}{{.sat}}.<D:.f16>.f32 d:D, a:f32")
_add(f"cvt{_FRND}{{.ftz}}{{.sat}}.f32.f64 d:f32, a:f64")
_add(f"cvt{_FRND}{{.sat}}.f16.f64 d:f16, a:f64")
_add(f"cvt{_FRND}{{.ftz}}.bf16.f32 d:bf16, a:f32; sm=80")
_add(f"cvt{_FRND}.bf16.f64 d:bf16, a:f64; sm=90; ptx=78")
_add("cvt{.ftz}{.sat}.f32.f16 d:f32, a:f16")
_add("cvt{.sat}.f64.f16 d:f64, a:f16")
_add("cvt{.ftz}{.sat}.f64.f32 d:f64, a:f32")
# .bf16 against .f16/.f32/.f64: ptxas takes an optional float rounding either way
_add(f"cvt{{{_FRND[1:-1]}}}.bf16.f16 d:bf16, a:f16; sm=90; ptx=78")
_add(f"cvt{{{_FRND[1:-1]}}}.f16.bf16 d:f16, a:bf16; sm=90; ptx=78")
_add(f"cvt{{{_FRND[1:-1]}}}.f32.bf16 d:f32, a:bf16; sm=80; ptx=71")
_add(f"cvt{{{_FRND[1:-1]}}}.ftz.f32.bf16 d:f32, a:bf16; sm=90; ptx=78")
_add(f"cvt{{{_FRND[1:-1]}}}.f64.bf16 d:f64, a:bf16; sm=90; ptx=78")

# ----------------------------------------------------------------------------- cvt, packed
# (ISA "cvt" syntax block, PTX 7.0-8.8). Packed results hold two (or four) values in one bit
# register of exactly their size: ptxas takes no wider one, and no float register. cvt.rs's
# random bits (rbits, .b32 in the ISA) take an untyped register only: ptxas 13.0 answers
# "Arguments mismatch" for a .u32, .s32, .f32 or .f16x2 one (`!!`).
_add("cvt<R:.rn|.rz>.satfinite.f16.f32 d:f16, a:f32")
_add("cvt<R:.rn|.rz>.relu{.satfinite}.f16.f32 d:f16, a:f32; sm=80")
_add("cvt<R:.rn|.rz>{.relu}{.satfinite}.bf16.f32 d:bf16, a:f32; sm=80")
for _d in ("f16x2", "bf16x2"):  # .f16x2 takes wider registers, .bf16x2 does not
    _add(f"cvt<R:.rn|.rz>{{.relu}}{{.satfinite}}.{_d}.f32 d:{_d}, a:f32, a:f32; sm=80")
    _add(f"cvt.rs{{.relu}}{{.satfinite}}.{_d}.f32 d:{_d}, a:f32, a:f32, r:b32!!; sm=100a-110")
_add("cvt.rna{.satfinite}.tf32.f32 d:tf32, a:f32; sm=80")
_add("cvt<R:.rn|.rz>{.relu}.tf32.f32 d:tf32, a:f32; sm=90; ptx=78")
_add("cvt<R:.rn|.rz>.satfinite{.relu}.tf32.f32 d:tf32, a:f32; sm=100; ptx=86")
_F8 = "<D:.e4m3x2|.e5m2x2>"
_add(f"cvt.rn.satfinite{{.relu}}{_F8}.f32 d:D, a:f32, a:f32; sm=89")
_add(f"cvt.rn.satfinite{{.relu}}{_F8}.f16x2 d:D, a:f16x2; sm=89")
_add("cvt.rn{.relu}.f16x2.<A:.e4m3x2|.e5m2x2> d:f16x2, a:A; sm=89")
_FAMILY = "sm=100f,120f"  # sm_100a/f, sm_103, sm_110, sm_120a/f, sm_121 (not plain sm_100)
_add(f"cvt.rn.satfinite{{.relu}}<D:.e2m1x2|.e2m3x2|.e3m2x2>.f32 d:D, a:f32, a:f32; {_FAMILY}")
_add(f"cvt.rn{{.relu}}.f16x2.<A:.e2m1x2|.e2m3x2|.e3m2x2> d:f16x2, a:A; {_FAMILY}")
_add(f"cvt.rn.satfinite{{.relu}}.e2m1x2.f16x2 d:e2m1x2, a:f16x2; {_FAMILY}; undocumented")
_add("cvt.rs{.relu}.satfinite.<D:.e4m3x4|.e5m2x4|.e2m3x4|.e3m2x4|.e2m1x4>.f32 d:D, {a:f32*4}, "
     "r:b32!!; sm=100a-110")
_add(f"cvt<R:.rz|.rp>{{.satfinite}}.ue8m0x2.f32 d:ue8m0x2, a:f32, a:f32; {_FAMILY}")
# ptxas takes a .f32 register for the .bf16x2 side of these (not for cvt.rn.bf16x2.f32's)
_add(f"cvt<R:.rz|.rp>{{.satfinite}}.ue8m0x2.bf16x2 d:ue8m0x2, af:b32~; {_FAMILY}")
_add(f"cvt.rn.bf16x2.ue8m0x2 d:b32~, a:ue8m0x2; {_FAMILY}")
# cvt.pack: two (or, with .b32 c, four) saturated integers packed into a .b32
# (.pack first: 'cvt.sat.pack.s16.s32' is "Unknown modifier '.pack'", ptxas 13.0)
_add("cvt.pack.sat.<D:.u16|.s16>.s32 d:b32!, a:s32, a:s32; sm=72; head=1")
_add("cvt.pack.sat.<D:.u2|.s2|.u4|.s4|.u8|.s8>.s32.b32 d:b32!, a:s32, a:s32, a:b32; sm=72; "
     "head=1")

# .bf16x2 against the packed fp8/fp4 types, newer than ptxas 13.0 (measured with the CUDA 13.1
# and 13.2 wheels): narrowing from PTX ISA 9.1, widening from 9.2 (CUTLASS guards the latter
# with CUDA_PTX_FP8_BF16_CVT_SUPPORTED)
_add(f"cvt.rn.satfinite{{.relu}}<D:.e4m3x2|.e5m2x2|.e2m1x2>.bf16x2 d:D, a:bf16x2; {_FAMILY}; "
     "toolkit=13.1")
_add(f"cvt.rn{{.relu}}.bf16x2.<A:.e4m3x2|.e5m2x2|.e2m1x2|.e2m3x2|.e3m2x2> d:bf16x2, a:A; "
     f"{_FAMILY}; toolkit=13.2")
# ptxas 13.2-13.5 take .satfinite there too (13.1: "Illegal modifier '.satfinite'"), where
# the .f16x2 widening refuses it ("Unexpected instruction types")
_add(f"cvt.rn{{.relu}}.satfinite.bf16x2.<A:.e4m3x2|.e5m2x2|.e2m1x2|.e2m3x2|.e3m2x2> d:bf16x2, "
     f"a:A; {_FAMILY}; toolkit=13.2; undocumented")
# the 6-bit floats from 16-bit pairs, PTX ISA 9.1 (ptxas 13.1 takes them on the family targets,
# 13.0 does not: "Unexpected instruction types"; .satfinite required; CUDA 13.5's cuda_fp6.hpp)
_add(f"cvt.rn.satfinite{{.relu}}<D:.e2m3x2|.e3m2x2><A:.f16x2|.bf16x2> d:D, a:A; {_FAMILY}; "
     "toolkit=13.1")

# PTX ISA 9.4 (ptxas 13.4 and 13.5 on sm_107a/f only: "Instruction 'cvt with .ue5m3x2' not
# supported" on sm_100a, sm_103a, sm_110a, sm_120a; CUDA 13.5's cuda_fp8.hpp, cuda_fp6.hpp and
# cuda_fp4.hpp): the narrow floats rounded toward zero (.satfinite required: "'.satfinite'
# modifier required"), and the unsigned .ue5m3x2 pair, to and from 16-bit pairs and .f32 (no
# .relu: "Illegal modifier '.relu'"; .rn .rz .rp only, and widening by .rn)
_SM107 = "sm=107f; toolkit=13.4"
_add(f"cvt.rz.satfinite{{.relu}}<D:.e2m1x2|.e2m3x2|.e3m2x2>.f32 d:D, a:f32, a:f32; {_SM107}")
_add(f"cvt.rz.satfinite{{.relu}}<D:.e2m1x2|.e2m3x2|.e3m2x2>.f16x2 d:D, a:f16x2; {_SM107}")
_add(f"cvt.rz.satfinite{{.relu}}<D:.e2m3x2|.e3m2x2>.bf16x2 d:D, a:bf16x2; {_SM107}")
# (as for the .rn one, ptxas takes an .f32 register or literal for the .bf16x2 into .e2m1x2)
_add(f"cvt.rz.satfinite{{.relu}}.e2m1x2.bf16x2 d:e2m1x2, af:b32~; {_SM107}")
_add(f"cvt<R:.rn|.rz|.rp>{{.satfinite}}.ue5m3x2.f32 d:ue5m3x2, a:f32, a:f32; {_SM107}")
_add(f"cvt<R:.rn|.rz|.rp>{{.satfinite}}.ue5m3x2<A:.f16x2|.bf16x2> d:ue5m3x2, a:A; {_SM107}")
_add(f"cvt.rn<D:.f16x2|.bf16x2>.ue5m3x2 d:D, a:ue5m3x2; {_SM107}")

_NEW_TYPES = ("bf16", "tf32", "e4m3", "e5m2", "e2m1", "e2m3", "e3m2", "ue8m0", "ue5m3")


def _cvt(form: str) -> str:
    """ptxas reads cvt's modifiers in any order, but its first type is the result's; and a
    conversion from or to .bf16, .tf32 or a packed narrow float takes registers of exactly the
    operands' sizes ("cvt.rn.bf16.u16 %h1, %r2": Arguments mismatch, where cvt.rn.f16.u16
    takes the .b32 register). An operand written ``a:b32~`` is left as ptxas reads it. An
    integer side is of its size only (the form is ``strict``), and takes a packed register as
    an integer operand does elsewhere ('cvt.rn.bf16.u32 %h1, %hx2' assembles)."""
    mnemonic, _, rest = form.partition(" ")
    strict = ""
    if any(t in mnemonic for t in _NEW_TYPES):
        integers = _INTEGERS | {var for var, words in re.findall(r"<(\w+):([^>]*)>", mnemonic)
                                if {w.lstrip(".") for w in words.split("|")} <= _INTEGERS}
        operands, _, keys = rest.partition(";")
        parts = [p.strip() for p in operands.split(",")]
        exact = []
        for part in parts:
            if part.endswith("~"):  # "a:b32~": as ptxas reads it, not exact
                part = part[:-1]
            elif part[2:] in integers:
                strict = "; strict"
            elif part.startswith(("d:", "a:")) and not part.endswith("!"):
                part += "!"
            elif part.startswith("{a:") and "!" not in part:
                part = part.replace("*", "!*")
            exact.append(part)
        rest = ", ".join(exact) + (f";{keys}" if keys else "")
    return f"{mnemonic} {rest}; positional{strict}"


_INTEGERS = frozenset(f"{k}{n}" for k in "us" for n in (8, 16, 32, 64))


FORMS[:] = [_cvt(f) if f.startswith("cvt") else f for f in FORMS]


# ----------------------------------------------------------------------------- bulk copies
# (ISA 9.7.9.25: cp.async.bulk, cp.reduce.async.bulk, cp.async.bulk.prefetch, their .tensor
# forms, commit_group/wait_group; CCCL cp_async_bulk*.h, cp_reduce_async_bulk*.h.) Operands:
# the byte count is a .u32, the multicast mask a 16-bit CTA mask, the cache policy a 64-bit
# integer (a register or an integer immediate: ptxas takes `1`, rejects `1.0` and an .f64 register).
_MB = ".mbarrier::complete_tx::bytes"
_HINT = ".L2::cache_hint"
_BULK = "cp.async.bulk"
# ptxas 13.0: an immediate byte count is a multiple of 16 in [0..1048560] ("expected to be
# multiple of 16"); a floating-point literal is "Arguments mismatch"
_SIZE = "ai:u32:0..1048560%16"
for _hint, _policy in (("", ""), (_HINT, ", ai:u64")):
    _add(f"{_BULK}.shared::cta.global{_MB}{_hint} [A], [A], {_SIZE}, [A]{_policy}; sm=90; ptx=86")
    # PTX ISA 9.2 (ptxas 13.2, measured; CCCL cp_async_bulk.h): bytes left and right of the
    # source that may lie out of bounds, .u32 each
    _add(f"{_BULK}.shared::cta.global{_MB}.ignore_oob{_hint} [A], [A], {_SIZE}, ai:u32, ai:u32, "
         f"[A]{_policy}; sm=90; toolkit=13.2")
    _add(f"{_BULK}.shared::cluster.global{_MB}{_hint} [A], [A], {_SIZE}, [A]{_policy}; sm=90")
    _add(f"{_BULK}.shared::cluster.global{_MB}.multicast::cluster{_hint} [A], [A], {_SIZE}, [A], "
         f"a:u16{_policy}; sm=90")
    _add(f"{_BULK}.global.shared::cta.bulk_group{_hint} [A], [A], {_SIZE}{_policy}; sm=90")
    _add(f"{_BULK}.global.shared::cta.bulk_group{_hint}.cp_mask [A], [A], {_SIZE}{_policy}, "
         "a:u16; sm=100")
    _add(f"{_BULK}.prefetch.L2.global{_hint} [A], {_SIZE}{_policy}; sm=90")
# PTX ISA 9.4 (ptxas 13.4 and 13.5 on sm_107a/f only: "Feature
# 'cp.async.bulk.multicast::cluster::32b' not supported", "Illegal modifier
# '.mbarrier::report::validity::per_16bytes::8'" elsewhere; CCCL cp_async_bulk.h,
# cp_async_bulk_multicast.h, cp_async_bulk_prefetch.h): what the copy reports to its mbarrier
# about the validity of the bytes it read (these words only: per_16bytes::800 is "Unknown
# modifier"; not with .ignore_oob), the copy to the CTAs a 32-bit mask names, and the L2
# prefetch kept last (.L2::evict_last only: "Unsupported modifier '.evict_first'", and no
# cache policy beside it)
_REPORT = ("{" + "|".join(f".mbarrier::report::validity::{v}" for v in (
    "per_16bytes::8", "per_16bytes::80", "per_16bytes::8000", "per_16bytes::80000000",
    "per_element::ff")) + "|.mbarrier::report::disabled}")
_SM107 = "sm=107f; toolkit=13.4"
for _hint, _policy in (("", ""), (_HINT, ", ai:u64")):
    _add(f"{_BULK}<S:.shared::cta|.shared::cluster>.global{_MB}({_REPORT[1:-1]}){_hint} [A], [A], "
         f"{_SIZE}, [A]{_policy}; {_SM107}")
    _add(f"{_BULK}.shared::cluster.global{_MB}.multicast::cluster::32b{_REPORT}{_hint} [A], "
         f"[A], {_SIZE}, [A], ai:u32{_policy}; {_SM107}")
_add(f"{_BULK}.prefetch.L2.global.L2::evict_last [A], {_SIZE}; {_SM107}")
_add(f"{_BULK}.shared::cluster.shared::cta{_MB} [A], [A], {_SIZE}, [A]; sm=90")
_add(f"{_BULK}.commit_group; sm=90")
_add(f"{_BULK}.wait_group{{.read}} i:*; sm=90")
# PTX ISA 9.5 (ptxas 13.5; CCCL cp_async_bulk_wait_group.h): a wait restricted to the async
# proxy's view, never with .read ("Invalid combination of '.sync_restrict::proxy::async' and
# '.read'")
_add(f"{_BULK}.wait_group.sync_restrict::proxy::async i:*; sm=90; toolkit=13.5")

# cp.reduce.async.bulk: the operations per type, as for atom/red
_RED_CLUSTER = (("<O:.and|.or|.xor>", ".b32"), (".add", ".u32|.s32|.u64"),
                ("<O:.inc|.dec>", ".u32"), ("<O:.min|.max>", ".u32|.s32"))
_RED_GLOBAL = (("<O:.and|.or|.xor>", ".b32|.b64"), (".add", ".u32|.s32|.u64|.f32|.f64"),
               (".add.noftz", ".f16|.bf16"), ("<O:.inc|.dec>", ".u32"),
               ("<O:.min|.max>", ".u32|.s32|.u64|.s64|.f16|.bf16"))
for _op, _types in _RED_CLUSTER:
    _add(f"cp.reduce.async.bulk.shared::cluster.shared::cta{_MB}{_op}<T:{_types}> [A], [A], "
         f"{_SIZE}, [A]; sm=90")
for _op, _types in _RED_GLOBAL:
    for _hint, _policy in (("", ""), (_HINT, ", ai:u64")):
        _add(f"cp.reduce.async.bulk.global.shared::cta.bulk_group{_hint}{_op}<T:{_types}> "
             f"[A], [A], {_SIZE}{_policy}; sm=90")

# PTX ISA 9.1 (ptxas 13.1 and 13.5, sm_90 and newer; ptxas 13.1 names the feature: "Feature
# 'multimem.cp.async.bulk' requires PTX ISA .version 9.1"; torchcomms' ncclx tma_ptx.cuh): the
# copy and the reduction of shared memory to every GPU of a multicast object, the global forms
# above with 'multimem.' before them, without a cache hint ("Illegal modifier
# '.L2::cache_hint'") or a byte mask ("Arguments mismatch")
_add(f"multimem.{_BULK}.global.shared::cta.bulk_group [A], [A], {_SIZE}; sm=90; toolkit=13.1; "
     "head=3")
for _op, _types in _RED_GLOBAL:
    _add(f"multimem.cp.reduce.async.bulk.global.shared::cta.bulk_group{_op}<T:{_types}> [A], [A], "
         f"{_SIZE}; sm=90; toolkit=13.1; head=4")

# cp.async.bulk.tensor: [tensorMap, {one .b32 coordinate per dimension}]
# (the im2col offsets, and .im2col::w's halo and offset: 16-bit integers; ptxas 13.0 takes a
# .b16, .u16 or .s16 register for them, no .f16 one: "Arguments mismatch")
_DIMS = "<D:.1d|.2d|.3d|.4d|.5d>"
_TENSOR = "[A, {a:b32*D}]"
_CTA_GROUP = "{.cta_group::1@100f|.cta_group::2@100f}"
for _hint, _policy in (("", ""), (_HINT, ", ai:u64")):
    for _dst in (".shared::cluster", ".shared::cta"):
        _ptx = "; ptx=86" if _dst == ".shared::cta" else ""
        _add(f"cp.async.bulk.tensor{_DIMS}{_dst}.global{{.tile}}{_MB}{_CTA_GROUP}{_hint} "
             f"[A], {_TENSOR}, [A]{_policy}; sm=90{_ptx}")
        for _dim, _offsets in (("3d", 1), ("4d", 2), ("5d", 3)):
            _add(f"cp.async.bulk.tensor.{_dim}{_dst}.global.im2col{_MB}{_CTA_GROUP}{_hint} "
                 f"[A], [A, {{a:b32*{_dim[0]}}}], [A], {{a:u16*{_offsets}}}{_policy}; "
                 f"sm=90{_ptx}")
        # .im2col::w(::128): 3d-5d, the W halo and offset as two 16-bit values; ptxas 13.0:
        # .im2col::w into .shared::cta on every sm_100+ target, the rest on the sm_100 family
        _w = ("<W:.im2col::w|.im2col::w::128@100f>", "100") if _dst == ".shared::cta" else (
            "<W:.im2col::w|.im2col::w::128>", "100f")
        _add(f"cp.async.bulk.tensor<D:.3d|.4d|.5d>{_dst}.global{_w[0]}{_MB}{_CTA_GROUP}{_hint} "
             f"[A], {_TENSOR}, [A], {{a:u16*2}}{_policy}; sm={_w[1]}{_ptx}")
        # ptxas 13.0: into .shared::cta on every sm_100+ target, into .shared::cluster on the
        # sm_100 family only
        _gather = "100" if _dst == ".shared::cta" else "100f"
        _add(f"cp.async.bulk.tensor.2d{_dst}.global.tile::gather4{_MB}{_CTA_GROUP}{_hint} "
             f"[A], [A, {{a:b32*5}}], [A]{_policy}; sm={_gather}{_ptx}")
    _add(f"cp.async.bulk.tensor{_DIMS}.shared::cluster.global{{.tile}}{_MB}.multicast::cluster"
         f"{_CTA_GROUP}{_hint} [A], {_TENSOR}, [A], a:u16{_policy}; sm=90")
    for _dim, _offsets in (("3d", 1), ("4d", 2), ("5d", 3)):
        _add(f"cp.async.bulk.tensor.{_dim}.shared::cluster.global.im2col{_MB}"
             f".multicast::cluster{_CTA_GROUP}{_hint} [A], [A, {{a:b32*{_dim[0]}}}], [A], "
             f"{{a:u16*{_offsets}}}, a:u16{_policy}; sm=90")
    _add(f"cp.async.bulk.tensor<D:.3d|.4d|.5d>.shared::cluster.global"
         f"<W:.im2col::w|.im2col::w::128>{_MB}.multicast::cluster{_CTA_GROUP}{_hint} [A], "
         f"{_TENSOR}, [A], {{a:u16*2}}, a:u16{_policy}; sm=100f")
    _add(f"cp.async.bulk.tensor.2d.shared::cluster.global.tile::gather4{_MB}.multicast::cluster"
         f"{_CTA_GROUP}{_hint} [A], [A, {{a:b32*5}}], [A], a:u16{_policy}; sm=100f")
    # shared::cta -> global, and the reductions into global
    _add(f"cp.async.bulk.tensor{_DIMS}.global.shared::cta{{.tile}}.bulk_group"
         f"{_hint} {_TENSOR}, [A]{_policy}; sm=90")
    _add(f"cp.async.bulk.tensor<D:.3d|.4d|.5d>.global.shared::cta.im2col_no_offs.bulk_group"
         f"{_hint} {_TENSOR}, [A]{_policy}; sm=90")
    _add(f"cp.async.bulk.tensor.2d.global.shared::cta.tile::scatter4.bulk_group{_hint} "
         f"[A, {{a:b32*5}}], [A]{_policy}; sm=100f")
    _add(f"cp.reduce.async.bulk.tensor{_DIMS}.global.shared::cta"
         f"<O:.add|.min|.max|.inc|.dec|.and|.or|.xor>{{.tile}}.bulk_group"
         f"{_hint} {_TENSOR}, [A]{_policy}; sm=90")
    _add(f"cp.reduce.async.bulk.tensor<D:.3d|.4d|.5d>.global.shared::cta"
         f"<O:.add|.min|.max|.inc|.dec|.and|.or|.xor>.im2col_no_offs.bulk_group"
         f"{_hint} {_TENSOR}, [A]{_policy}; sm=90")
    # prefetch into L2
    _add(f"cp.async.bulk.prefetch.tensor{_DIMS}.L2.global{{.tile}}{_hint} {_TENSOR}{_policy}; "
         "sm=90")
    for _dim, _offsets in (("3d", 1), ("4d", 2), ("5d", 3)):
        _add(f"cp.async.bulk.prefetch.tensor.{_dim}.L2.global.im2col{_hint} "
             f"[A, {{a:b32*{_dim[0]}}}], {{a:u16*{_offsets}}}{_policy}; sm=90")
    _add(f"cp.async.bulk.prefetch.tensor<D:.3d|.4d|.5d>.L2.global<W:.im2col::w|.im2col::w::128>"
         f"{_hint} {_TENSOR}, {{a:u16*2}}{_policy}; sm=100f")
    _add(f"cp.async.bulk.prefetch.tensor.2d.L2.global.tile::gather4{_hint} [A, {{a:b32*5}}]"
         f"{_policy}; sm=100f")

# PTX ISA 9.4 (ptxas 13.4 and 13.5 on sm_107a/f only: "Feature '.override::global_address
# with destination state space ...' not supported" on sm_100a; CCCL cp_async_bulk_tensor*.h,
# cp_reduce_async_bulk_tensor.h, cp_async_bulk_prefetch_tensor.h): the copies that override the
# tensor map's global address (a .u64 after the map), and with it, for one dimension, its size
# ({.b16}), or for two to five, its sizes ({.b16 each}), lower strides ({.b32 each but the
# last}) and upper stride (a .b16), the address's parts in that order before the coordinates;
# the validity reports and the ::32b multicast of the plain copies; the L2 prefetch kept last.
# ptxas 13.5 takes .cta_group and the report left out, and the override on every mode
_TENSOR_REPORT = _REPORT
_CG_107 = "{.cta_group::1|.cta_group::2}"


def _overrides(dims: int, coordinates: str) -> list[tuple[str, str]]:
    """The override words and the address they make, for a tensor of ``dims`` dimensions."""
    address = ".override::global_address"
    out = [(address, f"[A, a:u64, {coordinates}]")]
    if dims == 1:
        out.append((f"{address}.override::global_dim", f"[A, a:u64, {{a:b16*1}}, {coordinates}]"))
    else:
        out.append((f"{address}.override::global_dim_stride", f"[A, a:u64, {{a:b16*{dims}}}, "
                    f"{{a:b32*{dims - 1}}}, a:b16, {coordinates}]"))
    return out


for _dims, _mode in ((1, "{.tile}"), (2, "{.tile}"), (3, "{.tile}"), (4, "{.tile}"),
                     (5, "{.tile}"), (2, ".tile::gather4")):
    _coords = f"{{a:b32*{5 if 'gather4' in _mode else _dims}}}"
    _d = f".{_dims}d"
    _MC = ".multicast::cluster::32b"
    for _hint, _policy in (("", ""), (_HINT, ", ai:u64")):
        # the reports of a copy into shared memory, and the ::32b multicast
        _add(f"cp.async.bulk.tensor{_d}<S:.shared::cta|.shared::cluster>.global{_mode}{_MB}"
             f"{_CG_107}({_TENSOR_REPORT[1:-1]}){_hint} [A], [A, {_coords}], [A]{_policy}; "
             f"{_SM107}")
        _add(f"cp.async.bulk.tensor{_d}.shared::cluster.global{_mode}{_MB}{_CG_107}{_MC}"
             f"{_TENSOR_REPORT}{_hint} [A], [A, {_coords}], [A], ai:u32{_policy}; {_SM107}")
        for _words, _address in _overrides(_dims, _coords) if "gather4" not in _mode else [
                (".override::global_address", f"[A, a:u64, {_coords}]")]:
            _add(f"cp.async.bulk.tensor{_d}<S:.shared::cta|.shared::cluster>.global{_mode}{_MB}"
                 f"{_CG_107}{_TENSOR_REPORT}{_words}{_hint} [A], {_address}, [A]{_policy}; "
                 f"{_SM107}")
            _add(f"cp.async.bulk.tensor{_d}.shared::cluster.global{_mode}{_MB}{_CG_107}{_MC}"
                 f"{_TENSOR_REPORT}{_words}{_hint} [A], {_address}, [A], ai:u32{_policy}; "
                 f"{_SM107}")
            _out = ".tile::scatter4" if "gather4" in _mode else "{.tile}"
            _add(f"cp.async.bulk.tensor{_d}.global.shared::cta{_out}.bulk_group{_words}{_hint} "
                 f"{_address}, [A]{_policy}; {_SM107}")
            if "gather4" not in _mode:
                _add(f"cp.reduce.async.bulk.tensor{_d}.global.shared::cta"
                     f"<O:.add|.min|.max|.inc|.dec|.and|.or|.xor>{{.tile}}{_words}.bulk_group"
                     f"{_hint} {_address}, [A]{_policy}; {_SM107}")
            _kept = _hint or "{.L2::evict_last}"  # the cache policy, or the priority kept last
            _add(f"cp.async.bulk.prefetch.tensor{_d}.L2.global{_mode}{_kept}{_words} "
                 f"{_address}{_policy}; {_SM107}")
    _add(f"cp.async.bulk.prefetch.tensor{_d}.L2.global{_mode}.L2::evict_last [A, {_coords}]; "
         f"{_SM107}")

PARTIAL: dict[str, frozenset[str]] = {
    # PTX ISA 9.1+ conversions (CUDA 13.1), newer than ptxas 13.0 knows: scaled conversions
    # and .bf16x2 against the packed narrow floats (TransformerEngine guards them with
    # CUDA_VERSION >= 13010, CUTLASS with CUDA_PTX_FP8_BF16_CVT_SUPPORTED)
    "cvt": frozenset({"s2f6x2", "f16x4", "bf16x4", "scaled::n2::ue8m0"}),
}

# ----------------------------------------------------------------------------- multimem
# (ISA 9.7.9.16 multimem.ld_reduce/st/red, PTX 8.1, sm_90; CCCL multimem_*.h.) As ptxas 13.0
# has them: an ordering and a scope come together or not at all ("Modifier '.gpu' requires
# order"); .f16/.bf16 only in vectors (.v2/.v4/.v8), the packed x2 types and .f32 alone or in
# .v2/.v4; min/max of floats only for the 16-bit ones; .acc::f32 only for the 16-bit adds.
_MM_SCOPE = "<S:.cta|.cluster|.gpu|.sys>"
_MM_HALF = "<T:.f16|.bf16>"
_MM_PACKED = "<T:.f16x2|.bf16x2>"


# The types ptxas 13.0 has no register of its own for (.bf16, .bf16x2) are untyped data of
# their size in multimem.ld_reduce and multimem.st: any register of that size fits them (.u16,
# .s16 and .f16 ones for .bf16; .u32, .s32, .f32 and .f16x2 ones for .bf16x2, alone or in
# vectors), where .f16x2 and .f32 keep their types; multimem.red checks them as red does (a bit
# register only). Measured against every register class of each size.
_MM_UNTYPED = {".bf16": "b16", ".bf16x2": "b32"}


def _mm(form: str) -> None:
    """Add a multimem form; in ld_reduce and st, its .bf16 and .bf16x2 variants are written
    with bit operands of their size (``_MM_UNTYPED``)."""
    types = re.search(r"<T:([^>]*)>", form)
    words = types.group(1).split("|") if types else []
    untyped = [w for w in words if w in _MM_UNTYPED]
    if not untyped or form.startswith("multimem.red"):
        _add(form)
        return
    assert types is not None
    others = [w for w in words if w not in _MM_UNTYPED]
    if others:
        _add(form.replace(types.group(0), "<T:" + "|".join(others) + ">"))
    for word in untyped:
        bits = _MM_UNTYPED[word]
        one = form.replace(types.group(0), f"<T:{word}>")
        _add(one.replace("d:T", f"d:{bits}").replace("a:T", f"a:{bits}"))


_LD_SEMS = (f"<M:.relaxed|.acquire>{_MM_SCOPE}", "", ".weak")
_ST_SEMS = (f"<M:.relaxed|.release>{_MM_SCOPE}", "", ".weak")
_RED_SEMS = (f"<M:.relaxed|.release>{_MM_SCOPE}", "")
for _sem in _LD_SEMS:
    _ld = f"multimem.ld_reduce{_sem}{{.global}}"
    _mm(f"{_ld}<O:.and|.or|.xor><T:.b32|.b64> d:T, [A]; sm=90")
    _mm(f"{_ld}.add<T:.u32|.s32|.u64> d:T, [A]; sm=90")
    _mm(f"{_ld}<O:.min|.max><T:.u32|.s32|.u64|.s64> d:T, [A]; sm=90")
    _mm(f"{_ld}.add<T:.f32|.f64> d:T, [A]; sm=90")
    _mm(f"{_ld}.add<V:.v2|.v4>.f32 {{d:f32*V}}, [A]; sm=90")
    for _acc in ("", "{.acc::f32}"):
        _ops = ".add" if _acc else "<O:.add|.min|.max>"
        _mm(f"{_ld}{_ops}{_acc}{_MM_PACKED} d:T, [A]; sm=90")
        _mm(f"{_ld}{_ops}{_acc}<V:.v2|.v4>{_MM_PACKED} {{d:T*V}}, [A]; sm=90")
        _mm(f"{_ld}{_ops}{_acc}<V:.v2|.v4|.v8>{_MM_HALF} {{d:T*V}}, [A]; sm=90")
for _sem in _ST_SEMS:
    _st = f"multimem.st{_sem}{{.global}}"
    _mm(f"{_st}<T:.b32|.b64|.u32|.s32|.u64|.s64|.f32|.f64|.f16x2|.bf16x2> [A], a:T; sm=90")
    _mm(f"{_st}<V:.v2|.v4><T:.f32|.f16x2|.bf16x2> [A], {{a:T*V}}; sm=90")
    _mm(f"{_st}<V:.v2|.v4|.v8>{_MM_HALF} [A], {{a:T*V}}; sm=90")
for _sem in _RED_SEMS:
    _red = f"multimem.red{_sem}{{.global}}"
    _mm(f"{_red}<O:.and|.or|.xor><T:.b32|.b64> [A], a:T; sm=90")
    _mm(f"{_red}.add<T:.u32|.s32|.u64|.f32|.f64|.f16x2|.bf16x2> [A], a:T; sm=90")
    _mm(f"{_red}<O:.min|.max><T:.u32|.s32|.u64|.s64> [A], a:T; sm=90")
    _mm(f"{_red}.add<V:.v2|.v4><T:.f32|.f16x2|.bf16x2> [A], {{a:T*V}}; sm=90")
    _mm(f"{_red}<O:.min|.max><V:.v2|.v4>{_MM_PACKED} [A], {{a:T*V}}; sm=90")
    _mm(f"{_red}<O:.add|.min|.max><V:.v2|.v4|.v8>{_MM_HALF} [A], {{a:T*V}}; sm=90")
# the narrow floats (PTX ISA 8.6; the sm_100 and sm_120 families, not plain sm_100; nccl's
# reduce_kernel.h), as ptxas 13.0 has them: 32 to 128 bits of .e4m3/.e5m2 (.v4/.v8, an 8-bit
# register each), their x2 packs (.v2/.v4/.v8 of any 16-bit register, as .bf16) and x4 packs
# (alone, .v2/.v4, any 32-bit register); ld_reduce adds (optionally .acc::f16), mins and maxes
# them, st stores them, red has none of them ("Unexpected instruction types")
_MM_FP8 = (("<V:.v4|.v8>", "<T:.e4m3|.e5m2>", "b8!"),
           ("<V:.v2|.v4|.v8>", "<T:.e4m3x2|.e5m2x2>", "b16"),
           ("", "<T:.e4m3x4|.e5m2x4>", "b32"), ("<V:.v2|.v4>", "<T:.e4m3x4|.e5m2x4>", "b32"))
for _vec, _types, _reg in _MM_FP8:
    _d = f"{{d:{_reg}*V}}" if _vec else f"d:{_reg}"
    _a = _d.replace("d:", "a:")
    for _sem in _LD_SEMS:
        _ld = f"multimem.ld_reduce{_sem}{{.global}}"
        _add(f"{_ld}<O:.add|.min|.max>{_vec}{_types} {_d}, [A]; {_FAMILY}")
        _add(f"{_ld}.add.acc::f16{_vec}{_types} {_d}, [A]; {_FAMILY}")
    for _sem in _ST_SEMS:
        _add(f"multimem.st{_sem}{{.global}}{_vec}{_types} [A], {_a}; {_FAMILY}")

# ptxas 13.0 takes an accumulation precision on multimem.st/red too, one of .acc::f32 and
# .acc::f16, for every type and target (nccl's reduce_kernel.h spells it): undocumented, the
# ISA has it on ld_reduce only
_MM_ACC = "<Q:.acc::f32|.acc::f16>"
FORMS.extend(re.sub(r"^multimem\.(st|red)", rf"multimem.\1{_MM_ACC}", f) + "; undocumented"
             for f in list(FORMS) if f.startswith(("multimem.st", "multimem.red")))

# ----------------------------------------------------------------------------- tensor maps
# (ISA 9.7.9.27 tensormap.replace, PTX 8.3; CCCL tensormap_replace.h: the ordinal and the
# enumerated fields are immediates, the others registers.)
_TM_SPACE = "{.global|.shared::cta}"
_TM_TARGETS = "sm=90a,100f,120f"  # ptxas 13.0: sm_90a, the sm_100/sm_120 families
_add(f"tensormap.replace.tile.global_address{_TM_SPACE}.b1024.b64 [A], a:b64; {_TM_TARGETS}")
_add(f"tensormap.replace.tile.rank{_TM_SPACE}.b1024.b32 [A], a:b32; {_TM_TARGETS}")
# (ptxas rejects a .f32 register or a floating-point literal for the new value: "Arguments
# mismatch for instruction 'sub'")
# The ordinal names one of the five dimensions and each enumerated field takes its own codes
# (ptxas 13.0: "value '5' expected to be in range [0..4] when .box_dim modifier is used";
# .elemtype [0..12], on the sm_100 and sm_120 families [0..15], the sub-byte types 13..15;
# .swizzle_mode and .swizzle_atomicity [0..3], .interleave_layout [0..2], .fill_mode [0..1]).
_add(f"tensormap.replace.tile<F:.box_dim|.global_dim|.element_stride>{_TM_SPACE}.b1024.b32 "
     f"[A], i:0..4, ai:b32!; {_TM_TARGETS}")
_add(f"tensormap.replace.tile.global_stride{_TM_SPACE}.b1024.b64 [A], i:0..4, a:b64; "
     f"{_TM_TARGETS}")
# (the narrower .elemtype form first: the first form whose operands fit decides the target)
for _field, _codes, _targets in ((".elemtype", "0..12", _TM_TARGETS),
                                 (".elemtype", "0..15", "sm=100f,120f"),
                                 (".interleave_layout", "0..2", _TM_TARGETS),
                                 (".swizzle_mode", "0..3", _TM_TARGETS),
                                 (".fill_mode", "0..1", _TM_TARGETS),
                                 (".swizzle_atomicity", "0..3", "sm=100f,120f")):
    _add(f"tensormap.replace.tile{_field}{_TM_SPACE}.b1024.b32 [A], i:{_codes}; {_targets}")
# PTX ISA 9.5 (ptxas 13.5; 13.4: "Unknown modifier '.query'"): whether a tensor map is of the large
# allocation class, into a predicate; the targets are tensormap.replace's (not plain sm_90,
# sm_100 nor sm_107). ptxas also takes .param and .const there, which the ISA's state spaces
# for tensor maps do not name.
_add(f"tensormap.query.alloc_class_large{_TM_SPACE}.b1024 d:pred, [A]; {_TM_TARGETS}; head=1; "
     "toolkit=13.5")
_add(f"tensormap.query.alloc_class_large<S:.param|.const>.b1024 d:pred, [A]; {_TM_TARGETS}; "
     "head=1; toolkit=13.5; undocumented")
_add("tensormap.cp_fenceproxy.global.shared::cta.tensormap::generic.release"
     "<S:.cta|.cluster|.gpu|.sys>.sync.aligned [A], [A], i:128; sm=90")

# ----------------------------------------------------------------------------- bulk stores
# (ISA st.bulk, PTX 8.6, sm_100; CCCL st_bulk.h: the size a .b64, the initial value 0.)
_add("st.bulk{.weak}{.shared::cta} [A], ai:u64:0..16777216%8, i:0; sm=100")
# a 32-bit size register (PTX ISA 9.0: ptxas 13.0 says "Feature 'st.bulk with 32-bit size
# argument' requires PTX ISA .version 9.0" before it): ptxas 13.0 takes a .u32 or .s32 one and
# fails on a .b32 one, inline asm's "r" ("Arguments mismatch for instruction 'mov'", in its own
# expansion), which 13.1 takes
_add("st.bulk{.weak}{.shared::cta} [A], r:u32!t, i:0; sm=100; ptx=90")
_add("st.bulk{.weak}{.shared::cta} [A], r:u32!, i:0; sm=100; toolkit=13.1")

# ----------------------------------------------------------------------------- async stores
# (ISA red.async, PTX 8.1, sm_90; CCCL red_async.h): a remote reduction into another CTA's
# shared memory, completing on its mbarrier; and the sm_100 release form into .global (ptxas
# 13.0 takes .gpu and .sys there, not the ISA's .cluster). ptxas also takes the mbarrier
# operand left out: undocumented, a warning.
for _op, _types in (("<O:.inc|.dec>", ".u32"), ("<O:.min|.max>", ".u32|.s32"),
                    ("<O:.and|.or|.xor>", ".b32"), (".add", ".u32|.s32|.u64")):
    _red = f"red.async.relaxed.cluster{{.shared::cluster}}{_MB}{_op}<T:{_types}> [A], a:T"
    _add(f"{_red}, [A]; sm=90")
    _add(f"{_red}; sm=90; undocumented")
_add("red.async{.mmio}.release<S:.gpu|.sys>{.global}.add<T:.u32|.s32|.u64|.s64> [A], a:T; "
     "sm=100")

# st.async (ISA st.async, PTX 8.1, sm_90; CCCL st_async.h): a store into another CTA's shared
# memory that completes on its mbarrier, 32- and 64-bit types, .v2, .v4 up to 128 bits; and the
# sm_100 release form into .global, 8- to 64-bit types, no vectors. ptxas 13.0 reads the
# operands by their exact size (no wider register, as st takes: `strict`) and is laxer than
# the ISA in its words (measured; undocumented, a warning): .shared/.shared::cta spaces, the
# completion mechanism or the mbarrier operand left out, a scalar for a vector.
_SA = ".b32|.b64|.u32|.u64|.s32|.s64|.f32|.f64"
_SA4 = ".b32|.u32|.s32|.f32"
_SA_NARROW = ".b8|.b16|.u8|.u16|.s8|.s16"
_SA_HEAD = "st.async{.weak|.cluster}{.shared::cluster}" + _MB
for _vec, _types, _value in (("", _SA, "a:T"), (".v2", _SA, "{a:T*2}"),
                             (".v4", _SA4, "{a:T*4}")):
    _add(f"{_SA_HEAD}{_vec}<T:{_types}> [A], {_value}, [A]; sm=90; strict")
    if _vec:
        _add(f"{_SA_HEAD}{_vec}<T:{_types}> [A], a:T, [A]; sm=90; strict; undocumented")
        _add(f"st.async{{.weak}}<S:.shared|.shared::cta>{{{_MB}}}{_vec}<T:{_types}> [A], "
             f"{_value}, [A]; sm=90; strict; undocumented")
_add(f"st.async{{.weak}}<S:.shared|.shared::cta>{{{_MB}}}<T:{_SA}> [A], a:T, [A]; sm=90; "
     "strict; undocumented")
_add(f"st.async{{.weak}}{{.shared|.shared::cta}}{{{_MB}}}<T:{_SA_NARROW}|{_SA}> [A], a:T; sm=90; "
     "strict; undocumented")
_add(f"{_SA_HEAD}<T:{_SA_NARROW}|{_SA}> [A], a:T; sm=90; strict; undocumented")
_add(f"st.async{{.mmio}}.release<S:.gpu|.sys>{{.global}}<T:{_SA_NARROW}|{_SA}> [A], a:T; "
     "sm=100; strict")
_add(f"st.async.global<T:{_SA_NARROW}|{_SA}> [A], a:T; sm=100; strict; undocumented")
# a scope with neither .release nor a state space nor an mbarrier, which ptxas 13.0 takes from
# sm_90 on, every type of either form, no vector (with .global: "requires .target sm_100"; with
# an mbarrier: "Modifier '.gpu' requires '.global' space"; with .mmio: "requires '.release'")
_add(f"st.async<S:.gpu|.sys><T:{_SA_NARROW}|{_SA}> [A], a:T; sm=90; strict; undocumented")
# .global with an mbarrier operand, which the sm_120 family takes (ptxas 13.0 crashes on it for
# sm_100a/f: no verdict there)
_add(f"st.async.global<T:{_SA}> [A], a:T, [A]; sm=120; strict; undocumented")
# ptxas also takes a vector without .v2/.v4 in a scalar's place, by rules of its own ({%r0,
# %r1} for .u32 but not for .b32, {%r0, %r1} for .b64 but not {%rd0, %rd1}): not judged. With
# .v2/.v4 the vector's size is the modifier's ("Argument vector size mismatch for instruction
# 'st.async'" for .v2 with four registers), and the forms judge it.
FORMS[:] = [f"{f}; lax_vectors"
            if f.startswith("st.async") and ".v2" not in f.split(" ")[0]
            and ".v4" not in f.split(" ")[0] else f
            for f in FORMS]

# ----------------------------------------------------------------------------- vector atomics
# (ISA atom/red "with vector type", PTX 8.1, sm_90: .global only, f32 in .v2/.v4, f16/bf16 in
# .v2/.v4/.v8, f16x2/bf16x2 in .v2/.v4) and the 128-bit atom.cas/atom.exch (PTX 8.3, sm_90).
_VSEM = "{.relaxed|.acquire|.release|.acq_rel}{.cta|.cluster|.gpu|.sys}{.global}"
_RSEM = "{.relaxed|.release}{.cta|.cluster|.gpu|.sys}{.global}"
_VECTOR_ATOMS = ((".add", "", "<V:.v2|.v4>", ".f32"),
                 ("<O:.add|.min|.max>", ".noftz", "<V:.v2|.v4|.v8>", "<T:.f16|.bf16>"),
                 ("<O:.add|.min|.max>", ".noftz", "<V:.v2|.v4>", "<T:.f16x2|.bf16x2>"))
for _op, _noftz, _vec, _type in _VECTOR_ATOMS:
    _t = "f32" if _type == ".f32" else "T"
    for _hint, _policy in (("", ""), (_HINT, ", ai:u64")):
        _add(f"atom{_VSEM}{_op}{_noftz}{_hint}{_vec}{_type} {{d:{_t}*V}}_, [A], {{a:{_t}*V}}"
             f"{_policy}; sm=90")
        _add(f"red{_RSEM}{_op}{_noftz}{_hint}{_vec}{_type} [A], {{a:{_t}*V}}{_policy}; sm=90")
_ASPACE = "{.global|.shared|.shared::cta|.shared::cluster}"
# ptxas 13.0 takes the sink for the old value of the 128-bit forms too, as for the narrower atom
_add(f"atom{{.relaxed|.acquire|.release|.acq_rel}}{{.cta|.cluster|.gpu|.sys}}{_ASPACE}"
     ".cas.b128 d_:b128, [A], a:b128, r:b128; sm=90")
_add(f"atom{{.relaxed|.acquire|.release|.acq_rel}}{{.cta|.cluster|.gpu|.sys}}{_ASPACE}"
     ".exch.b128 d_:b128, [A], a:b128; sm=90")
_add("atom{.relaxed|.acquire|.release|.acq_rel}{.cta|.cluster|.gpu|.sys}{.global}"
     f".exch{_HINT}.b128 d_:b128, [A], a:b128, ai:u64; sm=90")

# ptxas reads the destination's space first: cp.async.bulk.global.shared::cta is a store
FORMS[:] = [f"{f}; positional" if f.startswith("cp.") else f for f in FORMS]

# what grammar_data.PARTIAL abstained on that this module writes down
COVERED: dict[str, frozenset[str]] = {
    "cp": frozenset({"bulk", "reduce", "tensor"}),
    "atom": frozenset({"b128", "v2", "v4", "v8"}),
    "red": frozenset({"v2", "v4", "v8", "async", "mbarrier::complete_tx::bytes"}),
    "st": frozenset({"bulk", "async", "mbarrier::complete_tx::bytes"}),
}
