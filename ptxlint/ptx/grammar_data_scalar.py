"""Instruction forms of the scalar math, comparison, cache-control, stack, control-flow, video
(SIMD) and cluster-launch families (PTX ISA 9.x); notation in :mod:`ptxlint.ptx.grammar`,
appended to ``grammar_data.FORMS``.

Sources as for :mod:`ptxlint.ptx.grammar_data`: the syntax blocks and target notes of the PTX
ISA (9.7.3-9.7.4 integer and floating-point, 9.7.6 comparison, 9.7.9 cache control, 9.7.12
control flow, 9.7.16 video, 9.7.17 stack, clusterlaunchcontrol), CCCL's generated wrappers
(``clusterlaunchcontrol.h``) and ptxas 13.0, which ``benchmarks/ptxas_agreement.py`` runs on
every form and on mutants of each. Where ptxas and the ISA differ, ptxas decides what is an
error, and an accepted spelling the ISA does not show is ``undocumented`` (a warning at most).
"""

from __future__ import annotations

import re

FORMS: list[str] = []
_add = FORMS.append

# ----------------------------------------------------------------------------- integer bits
# (ptxas 13.0 takes any 32-bit register for the offset, a .f32 one too)
_add("fns.b32 d:b32, a:b32, a:b32, a:b32; sm=30")
_add("szext<M:.clamp|.wrap>.<T:.u32|.s32> d:T, a:T, a:u32; sm=70")
# (ptxas 13.0: integer registers and literals only, "Arguments mismatch" for a .f32 one)
_add("bmsk<M:.clamp|.wrap>.b32 d:u32, ai:u32, ai:u32; sm=70")

# ----------------------------------------------------------------------------- floating point
_RND = ".rn|.rz|.rm|.rp"
_add("testp<O:.finite|.infinite|.number|.notanumber|.normal|.subnormal>.<T:.f32|.f64> "
     "d:pred, a:T")
_add("testp.<T:.f32|.f64> d:pred, a:T; undocumented")  # ptxas 13.0 takes it without a test
_add("copysign.<T:.f32|.f64> d:T, a:T, a:T")
for _op in ("rcp", "sqrt"):
    _add(f"{_op}.approx{{.ftz}}.f32 d:f32, a:f32")
    _add(f"{_op}({_RND}){{.ftz}}.f32 d:f32, a:f32")
    _add(f"{_op}({_RND}).f64 d:f64, a:f64")
_add("rcp.approx.ftz.f64 d:f64, a:f64")
_add(f"rcp({_RND}).ftz.f64 d:f64, a:f64; undocumented")  # ptxas 13.0 takes .ftz here
_add("rsqrt.approx{.ftz}.f32 d:f32, a:f32")
_add("rsqrt.approx.f64 d:f64, a:f64")
_add("rsqrt.approx.ftz.f64 d:f64, a:f64")
for _op in ("sin", "cos", "lg2", "ex2"):
    _add(f"{_op}.approx{{.ftz}}.f32 d:f32, a:f32")
# PTX ISA 9.5 (ptxas 13.5, rejected by 13.4): the argument in turns, not radians; .ftz is
# required (".ftz modifier required for instruction 'sin' with modifier '.2pi'"), .f32 only, and
# lg2/ex2 have no .2pi ("Illegal modifier '.2pi'")
for _op in ("sin", "cos"):
    _add(f"{_op}.approx.ftz.2pi.f32 d:f32, a:f32; toolkit=13.5")
_add("ex2.approx<T:.f16|.f16x2> d:T, a:T; sm=75")
_add("ex2.approx.ftz<T:.bf16|.bf16x2> d:T, a:T; sm=90")
_add("tanh.approx<T:.f32|.f16|.f16x2> d:T, a:T; sm=75")
_add("tanh.approx<T:.bf16|.bf16x2> d:T, a:T; sm=90")

# ----------------------------------------------------------------------------- set, slct
# set writes a value (all ones or 1.0f for true) where setp writes a predicate. ptxas reads the
# two type words by position: the result's, then the operands' (positional).
_CMP_UNSIGNED = ".eq|.ne|.lt|.le|.gt|.ge|.lo|.ls|.hi|.hs"
_CMP_SIGNED = ".eq|.ne|.lt|.le|.gt|.ge"
_CMP_BITS = ".eq|.ne"
_CMP_FLOAT = ".eq|.ne|.lt|.le|.gt|.ge|.equ|.neu|.ltu|.leu|.gtu|.geu|.num|.nan"
_SOURCES = ((_CMP_UNSIGNED, ".u16|.u32|.u64", ""), (_CMP_SIGNED, ".s16|.s32|.s64", ""),
            (_CMP_BITS, ".b16|.b32|.b64", ""), (_CMP_FLOAT, ".f32", "{.ftz}"),
            (_CMP_FLOAT, ".f64", ""))


def _set(dtype: str, stype: str, cmp: str, ftz: str, keys: str = "") -> None:
    d = ("D" if "|" in dtype else "b32" if dtype == ".bf16x2" else "b16!" if dtype == ".bf16"
         else dtype.lstrip("."))
    s = "T" if "|" in stype else stype.lstrip(".")
    dslot = f"<D:{dtype}>" if "|" in dtype else dtype
    sslot = f"<T:{stype}>" if "|" in stype else stype
    tail = f"; positional{keys}"
    # the .bf16 forms take c from a register only (ptxas 13.0: "Arguments mismatch" for `1`)
    c = "r:pred" if "bf16" in dtype + stype else "a:pred"
    _add(f"set<C:{cmp}>{ftz}{dslot}{sslot} d:{d}, a:{s}, a:{s}{tail}")
    _add(f"set<C:{cmp}><B:.and|.or|.xor>{ftz}{dslot}{sslot} d:{d}, a:{s}, a:{s}, {c}{tail}")


for _cmp, _stypes, _ftz in _SOURCES:
    _set(".u32|.s32|.f32", _stypes, _cmp, _ftz)
    # a .f16 result (PTX 4.2, sm_53) and a .bf16 one (PTX 7.8, sm_90) from the same sources
    _set(".f16", _stypes, _cmp, _ftz, "; sm=53")
    _set(".bf16", _stypes, _cmp, "", "; sm=90")
_set(".u16|.s16|.u32|.s32|.f16", ".f16", _CMP_FLOAT, "{.ftz}", "; sm=53")
_set(".u16|.s16|.u32|.s32", ".bf16", _CMP_FLOAT, "", "; sm=90")
# a .bf16 result: ptxas 13.0 takes a .u16 or .s16 register for it too, not an .f16 one (`!`)
_set(".bf16", ".bf16", _CMP_FLOAT, "", "; sm=90")
_set(".f16x2|.u32|.s32", ".f16x2", _CMP_FLOAT, "{.ftz}", "; sm=53")
_set(".u32|.s32", ".bf16x2", _CMP_FLOAT, "", "; sm=90")
# a .bf16x2 result: ptxas 13.0 takes a .f32 register for it too (not for .f16x2's)
_set(".bf16x2", ".bf16x2", _CMP_FLOAT, "", "; sm=90")

_SLCT = ".b16|.b32|.b64|.u16|.u32|.u64|.s16|.s32|.s64|.f32|.f64"
_add(f"slct<D:{_SLCT}>.s32 d:D, a:D, a:D, a:s32; positional")
_add(f"slct{{.ftz}}<D:{_SLCT}>.f32 d:D, a:D, a:D, a:f32; positional")

# ----------------------------------------------------------------------------- cache control
_add("prefetch{.global|.local}<L:.L1|.L2> [A]")
_add("prefetch.global<L:.L2::evict_last|.L2::evict_normal> [A]; sm=80")
# a generic address: ptxas 13.0 takes it, the ISA writes .global
_add("prefetch<L:.L2::evict_last|.L2::evict_normal> [A]; sm=80; undocumented")
_add("prefetchu.L1 [A]")
_add("prefetch{.const|.param}.tensormap [A]; sm=90")
# PTX ISA 9.4 (ptxas 13.4; CCCL prefetch.h): a 32-byte L1 prefetch of an address known to be
# valid, the two words together (".valid_addr modifier required for instruction 'prefetch'
# with modifier '.L1::32B'", and the other way round)
_add("prefetch{.global}.L1::32B.valid_addr [A]; sm=90; toolkit=13.4")
# the fraction is a .f32 in (0.0, 1.0] (ptxas 13.0: "value '1.500000' out of range, expected to
# be in range (0.000000 .. 1.000000]"; 0.0 likewise)
_add("createpolicy.fractional<P:.L2::evict_last|.L2::evict_normal|.L2::evict_first|"
     ".L2::evict_unchanged>{.L2::evict_first|.L2::evict_unchanged}.b64 d:u64, ?a:f32:(0..1]; "
     "sm=80")
_add("createpolicy.range{.global}<P:.L2::evict_last|.L2::evict_normal|.L2::evict_first|"
     ".L2::evict_unchanged>{.L2::evict_first|.L2::evict_unchanged}.b64 d:u64, [A], ai:u32, "
     "ai:u32; sm=80")
# (ptxas 13.0: the policy is an integer register, "Arguments mismatch" for a .f64 one)
_add("createpolicy.cvt.L2.b64 d:u64, ai:u64; sm=80")
_add("discard{.global}.L2 [A], i:128; sm=80")
_add("applypriority{.global}.L2::evict_normal [A], i:128; sm=80")
# PTX ISA 9.4 (ptxas 13.4 and 13.5 on sm_107a/f only; CCCL applypriority_async_bulk.h): the
# priority of a whole range, completed in a bulk group (".completion_mechanism modifier
# required"), its .u32 size a register or an immediate, a multiple of 16 ("expected to be
# multiple of 16"; a .b64: "Arguments mismatch")
_add("applypriority.async.bulk{.global}.bulk_group.L2::evict_normal [A], ai:u32:0..%16; "
     "sm=107f; head=2; toolkit=13.4")

# ----------------------------------------------------------------------------- stack
_add("alloca.<T:.u32|.u64> d:T, a:T, ?i:*; sm=52")
_add("stacksave.<T:.u32|.u64> d:T; sm=52")
_add("stackrestore.<T:.u32|.u64> r:T; sm=52")

# ----------------------------------------------------------------------------- control flow
_add("bra{.uni} L")
_add("ret{.uni}")
_add("exit")
_add("trap")
_add("brkpt; sm=11")
_add("pmevent i:0..15")
_add("pmevent.mask i:0..0xffff")

# ----------------------------------------------------------------------------- cluster launch
# (PTX ISA 8.6, sm_100; CCCL clusterlaunchcontrol.h). The response is a 16-byte opaque value in
# shared memory, read back into a .b128 register.
_add("clusterlaunchcontrol.try_cancel.async{.shared::cta}.mbarrier::complete_tx::bytes.b128 "
     "[A], [A]; sm=100")
_add("clusterlaunchcontrol.try_cancel.async{.shared::cta}.mbarrier::complete_tx::bytes"
     ".multicast::cluster::all.b128 [A], [A]; sm=100f,120a")
_add("clusterlaunchcontrol.query_cancel.is_canceled.pred.b128 d:pred, a:b128; sm=100")
_add("clusterlaunchcontrol.query_cancel.get_first_ctaid.v4.b32.b128 {d_:b32*4}, a:b128; sm=100")
_add("clusterlaunchcontrol.query_cancel<X:.get_first_ctaid::x|.get_first_ctaid::y|"
     ".get_first_ctaid::z>.b32.b128 d:b32, a:b128; sm=100")

# ----------------------------------------------------------------------------- video (SIMD)
# (ISA 9.7.16.) ptxas reads the three type words by position: the result's, a's, b's. A byte or
# half-word selector on a register (`a.h10`, `d.b0`) or a negated operand (`-a`) makes the
# operand something the grammar does not read: those instructions are not judged. ptxas 13.0
# takes integer registers only (a .f32 one: "Arguments mismatch"); the scalar forms take c
# without a secondary operation too (the merge form, its `d.dsel` left at its default), and
# the SIMD forms no immediate at all ("Incorrect video selector").
_UV = "<D:.u32|.s32><A:.u32|.s32><B:.u32|.s32>"
_VCMP = "<C:.eq|.ne|.lt|.le|.gt|.ge>"
_V3 = "d:u32, ai:u32, ai:u32, ?ai:u32; positional"
_V4 = "d:u32, ai:u32, ai:u32, ai:u32; positional"
for _op in ("vadd", "vsub", "vabsdiff", "vmin", "vmax"):
    _add(f"{_op}{_UV}{{.sat}} {_V3}")
    _add(f"{_op}{_UV}{{.sat}}<O:.add|.min|.max> {_V4}")
for _op in ("vshl", "vshr"):
    _add(f"{_op}<D:.u32|.s32><A:.u32|.s32>.u32{{.sat}}<M:.clamp|.wrap> {_V3}")
    _add(f"{_op}<D:.u32|.s32><A:.u32|.s32>.u32{{.sat}}<M:.clamp|.wrap><O:.add|.min|.max> {_V4}")
_add(f"vmad{_UV}{{.sat}}{{.shr7|.shr15}} {_V4}")
_add(f"vmad{_UV}.po{{.sat}}{{.shr7|.shr15}} {_V4}")
_add(f"vset<A:.u32|.s32><B:.u32|.s32>{_VCMP} {_V3}")
_add(f"vset<A:.u32|.s32><B:.u32|.s32>{_VCMP}<O:.add|.min|.max> {_V4}")
_SIMD = "d:u32, r:u32, r:u32, r:u32; positional"
for _n in ("2", "4"):
    for _op in ("vadd", "vsub", "vavrg", "vabsdiff", "vmin", "vmax"):
        _add(f"{_op}{_n}{_UV}{{.sat}} {_SIMD}")
        _add(f"{_op}{_n}{_UV}.add {_SIMD}")
    _add(f"vset{_n}<A:.u32|.s32><B:.u32|.s32>{_VCMP}{{.add}} {_SIMD}")

# the families this module describes entirely
FAMILIES: frozenset[str] = frozenset(
    m.group() for m in (re.match(r"[a-z0-9_]+", form) for form in FORMS) if m is not None)
