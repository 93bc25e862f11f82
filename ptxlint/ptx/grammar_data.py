"""The instruction forms of the PTX ISA (9.x) that ptxlint knows exactly; notation in
:mod:`ptxlint.ptx.grammar`.

Sources: the syntax blocks and "PTX ISA Notes"/"Target ISA Notes" of the PTX ISA manual
(chapter 9), CCCL's generated wrappers (``cuda/__ptx/instructions/generated/*.h``), and ptxas
13.0 itself: every form here is checked by ``benchmarks/ptxas_agreement.py``, which assembles
each form and systematic mutants of it for sm_75..sm_120a. Where the manual and ptxas differ,
ptxas wins for what is an error, and a spelling ptxas accepts without the manual documenting it
is marked ``undocumented`` (a warning at most).

``PARTIAL`` names the sub-families of a covered opcode that are not written down yet: an
instruction carrying one of those modifiers (or all the words of a ``"v8+b16"`` entry) is not
judged (the rules fall back to the family
vocabulary of :mod:`ptxlint.ptx.isa_table`).
"""

from __future__ import annotations

import itertools

# ----------------------------------------------------------------------------- type sets
INT = "u16|u32|u64|s16|s32|s64"
INT_ALL = "u8|u16|u32|u64|s8|s16|s32|s64"
BITS = "b16|b32|b64"
LDST = "b8|b16|b32|b64|b128@70|u8|u16|u32|u64|s8|s16|s32|s64|f16|f16x2|f32|f64"
F_RND = ".rn|.rz|.rm|.rp"


def _dots(alternatives: str) -> str:
    return "|".join("." + a for a in alternatives.split("|"))


FORMS: list[str] = []
_add = FORMS.append

# ----------------------------------------------------------------------------- integer arithmetic
for op in ("add", "sub"):
    _add(f"{op}.<T:{_dots(INT)}> d:T, a:T, a:T")
    _add(f"{op}.sat.s32 d:s32, a:s32, a:s32")
    _add(f"{op}.cc.<T:.u32|.s32|.u64|.s64> d:T, a:T, a:T")
    if op == "add":
        _add(f"{op}<T:.u16x2|.s16x2> d:T, a:T, a:T; sm=90")
    # floating point
    _add(f"{op}{{{F_RND}}}{{.ftz}}{{.sat}}.f32 d:f32, a:f32, a:f32")
    _add(f"{op}{{{F_RND}}}.f64 d:f64, a:f64, a:f64")
    _add(f"{op}{{.rn}}{{.ftz}}{{.sat}}<T:.f16|.f16x2> d:T, a:T, a:T; sm=53")
    _add(f"{op}{{.rn}}<T:.bf16|.bf16x2> d:T, a:T, a:T; sm=90")
    _add(f"{op}{{{F_RND}}}{{.ftz}}.f32x2 d:f32x2, a:f32x2, a:f32x2; sm=100")
    # mixed precision: an f16/bf16 input and an f32 input, f32 result. ptxas 13.0 reads the
    # .bf16 input as a 16-bit integer: it takes an integer literal (not for .f16) and a .b16,
    # .u16 or .s16 register, no .f16 one ("Arguments mismatch")
    _add(f"{op}{{{F_RND}}}{{.sat}}.f32.f16 d:f32, a:f16, a:f32; sm=100; ptx=86")
    _add(f"{op}{{{F_RND}}}{{.sat}}.f32.bf16 d:f32, a:u16, a:f32; sm=100; ptx=86")
# PTX ISA 9.2 (ptxas 13.2 takes them, 13.1 and older do not; CCCL's SIMD and saturating
# helpers): packed bytes and unsigned/packed saturation on the sm_120 family, and (ptxas 13.4
# and 13.5) on sm_107a/f, not on plain sm_107 nor the rest of the sm_100 family; from registers
# only
for op in ("add", "sub"):
    _add(f"{op}{{.sat}}<T:.u8x4|.s8x4> d:T, r:T, r:T; sm=107f,120f; toolkit=13.2")
_add("add.sat<T:.u16x2|.s16x2|.u32> d:T, r:T, r:T; sm=107f,120f; toolkit=13.2")
for op in ("addc", "subc"):
    _add(f"{op}{{.cc}}<T:.u32|.s32|.u64|.s64> d:T, a:T, a:T")

# The integer mode of mul, mad (madc) and mul24/mad24 is part of the instruction's name: it
# comes first (head=1), the other words in any order ('mad.lo.u32.cc' compiles); ptxas 13.0:
# 'mul.s32.hi' and 'mad.cc.lo.u32' are "Unexpected instruction types specified", 'mul.u32.wide'
# "Unknown modifier '.wide'", 'mul24.u32.lo' and 'madc.u32.lo' "Not a name of any known
# instruction"
for _m in ("hi", "lo"):
    _add(f"mul.{_m}.<T:{_dots(INT)}> d:T, a:T, a:T; head=1")
_add("mul.wide.u16 d:u32, a:u16, a:u16; head=1")
_add("mul.wide.s16 d:s32, a:s16, a:s16; head=1")
_add("mul.wide.u32 d:u64, a:u32, a:u32; head=1")
_add("mul.wide.s32 d:s64, a:s32, a:s32; head=1")
_add(f"mul{{{F_RND}}}{{.ftz}}{{.sat}}.f32 d:f32, a:f32, a:f32")
_add(f"mul{{{F_RND}}}.f64 d:f64, a:f64, a:f64")
_add("mul{.rn}{.ftz}{.sat}<T:.f16|.f16x2> d:T, a:T, a:T; sm=53")
_add("mul{.rn}<T:.bf16|.bf16x2> d:T, a:T, a:T; sm=90")
_add(f"mul{{{F_RND}}}{{.ftz}}.f32x2 d:f32x2, a:f32x2, a:f32x2; sm=100")  # PTX 8.6, like add/sub
for _m in ("hi", "lo"):
    _add(f"mad.{_m}.<T:{_dots(INT)}> d:T, a:T, a:T, a:T; head=1")
    _add(f"mad.{_m}.cc.<T:.u32|.s32|.u64|.s64> d:T, a:T, a:T, a:T; head=1")
    _add(f"madc.{_m}{{.cc}}.<T:.u32|.s32|.u64|.s64> d:T, a:T, a:T, a:T; head=1")
_add("mad.hi.sat.s32 d:s32, a:s32, a:s32, a:s32; head=1")
_add("mad.wide.u16 d:u32, a:u16, a:u16, a:u32; head=1")
_add("mad.wide.s16 d:s32, a:s16, a:s16, a:s32; head=1")
_add("mad.wide.u32 d:u64, a:u32, a:u32, a:u64; head=1")
_add("mad.wide.s32 d:s64, a:s32, a:s32, a:s64; head=1")
_add(f"mad{F_RND.replace('.rn|', '(.rn|')}){{.ftz}}{{.sat}}.f32 d:f32, a:f32, a:f32, a:f32")
_add(f"mad({F_RND}).f64 d:f64, a:f64, a:f64, a:f64")
_add(f"fma({F_RND}){{.ftz}}{{.sat}}.f32 d:f32, a:f32, a:f32, a:f32")
_add(f"fma({F_RND}).f64 d:f64, a:f64, a:f64, a:f64")
_add("fma.rn{.ftz}{.sat}<T:.f16|.f16x2> d:T, a:T, a:T, a:T; sm=53")
_add("fma.rn{.ftz}.relu<T:.f16|.f16x2> d:T, a:T, a:T, a:T; sm=80")
_add("fma.rn{.relu}<T:.bf16|.bf16x2> d:T, a:T, a:T, a:T; sm=80")
_add("fma.rn.oob{.relu}<T:.f16|.f16x2|.bf16|.bf16x2> d:T, a:T, a:T, a:T; sm=90")
_add("fma<R:.rz|.rm|.rp>.oob{.relu}<T:.bf16|.bf16x2> d:T, a:T, a:T, a:T; sm=90; undocumented")
_add("fma<R:.rz|.rm|.rp>{.relu}<T:.bf16|.bf16x2> d:T, a:T, a:T, a:T; sm=80; undocumented")
_add(f"fma({F_RND}){{.ftz}}.f32x2 d:f32x2, a:f32x2, a:f32x2, a:f32x2; sm=100")
_add(f"fma({F_RND}){{.sat}}.f32.f16 d:f32, a:f16, a:f16, a:f32; sm=100; ptx=86")
_add(f"fma({F_RND}){{.sat}}.f32.bf16 d:f32, a:u16, a:u16, a:f32; sm=100; ptx=86")  # as add's
# PTX ISA 9.4 (ptxas 13.4 and 13.5 with .version 9.4; before it "Feature
# 'mul.e4m3x4.e2m1x4.e4m3x4' requires PTX ISA .version 9.4 or later", ptxas 13.3 and older
# "Unexpected instruction types"): four-lane narrow-float arithmetic, an e4m3x4 or e5m2x4 result
# from any of the five x4 packs, on sm_100a and sm_103a only (not sm_100f, sm_107a, sm_110a nor
# sm_120a). The type words go by position, the result's first; .rn is the only rounding (.rz
# "Illegal rounding modifier"), .satfinite optional; no .ftz nor .relu. Operands are bit registers
# of the packs' sizes, no immediates. add/sub name the first source's pack only: the second is of
# the result's (add.e4m3x4.e2m1x4 takes a .b16 then a .b32), as is fma's addend.
_X4 = ".e4m3x4|.e5m2x4|.e2m1x4|.e2m3x4|.e3m2x4"
_X4_KEYS = "sm=100a-101-107-110; toolkit=13.4; positional"
_add(f"mul{{.rn}}{{.satfinite}}<D:.e4m3x4|.e5m2x4><A:{_X4}><B:{_X4}> d:D, r:A, r:B; {_X4_KEYS}")
_add(f"fma{{.rn}}{{.satfinite}}<D:.e4m3x4|.e5m2x4><A:{_X4}><B:{_X4}> d:D, r:A, r:B, r:D; "
     f"{_X4_KEYS}")
for op in ("add", "sub"):
    _add(f"{op}{{.rn}}{{.satfinite}}<D:.e4m3x4|.e5m2x4><A:{_X4}> d:D, r:A, r:D; {_X4_KEYS}")
# PTX ISA 9.4 on the sm_107 family (sm_107a/f; ptxas 13.4 and 13.5, "requires PTX ISA .version
# 9.4" before; not on plain sm_107 nor sm_100a/sm_120a): packed half-precision mixes, types by
# position. An f16x2 times a bf16x2 pack (either first, the result of the first's type; no
# rounding nor .ftz); an f16x2/bf16x2 pack added to an f32x2 one, any rounding; two f32x2 packs
# summed into a bf16x2 (.rz only) or an f16x2 (.ftz required, .rz only). Registers only.
_SM107_MIX = "sm=107f; toolkit=13.4; positional"
_add(f"mul.f16x2.f16x2.bf16x2 d:f16x2, r:f16x2, r:bf16x2; {_SM107_MIX}")
_add(f"mul.bf16x2.bf16x2.f16x2 d:bf16x2, r:bf16x2, r:f16x2; {_SM107_MIX}")
for op in ("add", "sub"):
    _add(f"{op}{{{F_RND}}}.f32x2<A:.f16x2|.bf16x2>.f32x2 d:f32x2, r:A, r:f32x2; {_SM107_MIX}")
    _add(f"{op}{{.rz}}.bf16x2.f32x2.f32x2 d:bf16x2, r:f32x2, r:f32x2; {_SM107_MIX}")
    _add(f"{op}{{.rz}}.ftz.f16x2.f32x2.f32x2 d:f16x2, r:f32x2, r:f32x2; {_SM107_MIX}")
for _m in ("hi", "lo"):
    _add(f"mul24.{_m}.<T:.u32|.s32> d:T, a:T, a:T; head=1")
    _add(f"mad24.{_m}.<T:.u32|.s32> d:T, a:T, a:T, a:T; head=1")
_add("mad24.hi.sat.s32 d:s32, a:s32, a:s32, a:s32; head=1")
_add(f"sad.<T:{_dots(INT)}> d:T, a:T, a:T, a:T")
for op in ("div", "rem"):
    _add(f"{op}.<T:{_dots(INT)}> d:T, a:T, a:T")
_add("div.approx{.ftz}.f32 d:f32, a:f32, a:f32")
_add("div.full{.ftz}.f32 d:f32, a:f32, a:f32")
_add(f"div({F_RND}){{.ftz}}.f32 d:f32, a:f32, a:f32")
_add(f"div({F_RND}).f64 d:f64, a:f64, a:f64")
for op in ("abs", "neg"):
    _add(f"{op}.<T:.s16|.s32|.s64> d:T, a:T")
    _add(f"{op}{{.ftz}}.f32 d:f32, a:f32")
    _add(f"{op}.f64 d:f64, a:f64")
    _add(f"{op}{{.ftz}}<T:.f16|.f16x2> d:T, a:T; sm=53")
    _add(f"{op}<T:.bf16|.bf16x2> d:T, a:T; sm=80")
for op in ("min", "max"):
    _add(f"{op}.<T:{_dots(INT)}> d:T, a:T, a:T")
    _add(f"{op}{{.relu}}.s32 d:s32, a:s32, a:s32; sm=90")
    _add(f"{op}.u16x2 d:u16x2, a:u16x2, a:u16x2; sm=90")
    _add(f"{op}{{.relu}}.s16x2 d:s16x2, a:s16x2, a:s16x2; sm=90")
    _add(f"{op}{{.ftz}}{{.NaN@80}}.f32 d:f32, a:f32, a:f32")
    _add(f"{op}{{.ftz}}{{.NaN}}.xorsign.abs.f32 d:f32, a:f32, a:f32; sm=86")
    # three inputs: PTX ISA 8.8 (ptxas 12.9 under .version 8.7: "Feature 'max.f32 with 3
    # input operands' requires PTX ISA .version 8.8"; 12.8: "Arguments mismatch")
    _add(f"{op}{{.ftz}}{{.NaN}}{{.abs}}.f32 d:f32, a:f32, a:f32, a:f32; sm=100; ptx=88")
    _add(f"{op}.u8x4 d:u8x4, r:u8x4, r:u8x4; sm=107f,120f; toolkit=13.2")  # PTX ISA 9.2, as add's
    _add(f"{op}{{.relu}}.s8x4 d:s8x4, r:s8x4, r:s8x4; sm=107f,120f; toolkit=13.2")
    _add(f"{op}.f64 d:f64, a:f64, a:f64")
    _add(f"{op}{{.ftz}}{{.NaN}}<T:.f16|.f16x2> d:T, a:T, a:T; sm=80")
    _add(f"{op}{{.ftz}}{{.NaN}}.xorsign.abs<T:.f16|.f16x2> d:T, a:T, a:T; sm=86")
    _add(f"{op}{{.NaN}}<T:.bf16|.bf16x2> d:T, a:T, a:T; sm=80")
    _add(f"{op}{{.NaN}}.xorsign.abs<T:.bf16|.bf16x2> d:T, a:T, a:T; sm=86")
for op in ("popc", "clz"):
    _add(f"{op}.<T:.b32|.b64> d:u32, a:T")
_add("brev.<T:.b32|.b64> d:T, a:T")
_add("bfind{.shiftamt}.<T:.u32|.u64|.s32|.s64> d:u32, a:T")
_add("bfe.<T:.u32|.u64|.s32|.s64> d:T, a:T, a:u32, a:u32")
_add("bfi.<T:.b32|.b64> d:T, a:T, a:T, a:u32, a:u32")
_add("dp4a.<A:.u32|.s32>.<B:.u32|.s32> d:u32, a:u32, a:u32, a:u32; sm=61")
# .lo/.hi, shf's .l/.r, bar's .warp and cvt's .pack name the instruction: first (head=1;
# ptxas 13.0: 'dp2a.u32.u32.lo' "'.hi/.lo' modifier required", 'shf.wrap.l.b32' "Unknown
# modifier '.l'", 'bar.sync.warp' "Unknown modifier '.warp'")
for _m in ("lo", "hi"):
    _add(f"dp2a.{_m}.<A:.u32|.s32>.<B:.u32|.s32> d:u32, a:u32, a:u32, a:u32; sm=61; head=1")

# ----------------------------------------------------------------------------- logic and moves
for op in ("and", "or", "xor"):
    _add(f"{op}.<T:.pred|.b16|.b32|.b64> d:T, a:T, a:T")
_add("not.<T:.pred|.b16|.b32|.b64> d:T, a:T")
_add("cnot.<T:.b16|.b32|.b64> d:T, a:T")
# the sink takes the result anywhere (ptxas 13.0); with .or/.and (PTX 8.2) the predicate
# half is required: "Predicate output expected"
_add("lop3.b32 d_:b32, a:b32, a:b32, a:b32, i:*")
_add("lop3<B:.or|.and>.b32 d_:b32|p!, a:b32, a:b32, a:b32, i:*, a:pred")
_add("shl.<T:.b16|.b32|.b64> d:T, a:T, a:u32")
_add("shr.<T:.b16|.b32|.b64|.u16|.u32|.u64|.s16|.s32|.s64> d:T, a:T, a:u32")
for _d in ("l", "r"):
    _add(f"shf.{_d}<M:.clamp|.wrap>.b32 d:b32, a:b32, a:b32, a:u32; head=1")
_add("prmt.b32 d:b32, a:b32, a:b32, a:b32")
_add("prmt.b32<M:.f4e|.b4e|.rc8|.ecl|.ecr|.rc16> d:b32, a:b32, a:b32, a:b32")
_add(f"mov.<T:.pred|{_dots(BITS)}|{_dots(INT)}|.f32|.f64> d:T, a:T")
_add("mov.b128 d:b128, a:b128; sm=70")
# pack and unpack: mov.b64 d, {lo, hi} and mov.b64 {lo, hi}, d ('_' drops a half); a
# .b128 packs and unpacks four .b32 too (ptxas 13.0 takes 'mov.b128 t, {a, b, c, d}' and
# '{a, _, _, d}' as the result; eight .b16: "Illegal vector size: 8")
for whole, half, count in (("b16", "b8", 2), ("b32", "b16", 2), ("b32", "b8", 4),
                           ("b64", "b32", 2), ("b64", "b16", 4),
                           ("b128", "b64", 2), ("b128", "b32", 4)):
    keys = "; sm=70" if whole == "b128" else ""
    # ptxas 13.0 takes the sink for a part of a 32-bit result only ("Sink '_' not allowed as
    # a source operand" in the others)
    part = "a_" if whole == "b32" else "a"
    _add(f"mov.{whole} d:{whole}, {{{part}:{half}*{count}}}{keys}")
    _add(f"mov.{whole} {{d_:{half}*{count}}}, a:{whole}{keys}")
# vectors (the ISA's vector operands: mov is one of the instructions that take them; %tid,
# %ntid, %ctaid, %nctaid and the cluster ones are .v4 .u32 special registers, so
# mov.v4.u32 {a, b, c, d}, %nclusterid reads all four). ptxas 13.0: .v2/.v4 of the 16-, 32-
# and 64-bit types, 128 bits at most ("Vector type too large": .v4 of a 64-bit type), no
# .pred/.b8/.b128/.f16 ("Unexpected instruction types"), no .v8; the source is a vector of as
# many elements (registers or immediates, no sink) or one value (a register, an immediate, a
# special register); a sink stands for an element of the result, and in the source of .b32
# only (as in the 32-bit pack above; .u32, .s32, .f32 and the other sizes: "Sink '_' not
# allowed as a source operand")
for _v, _types in (("v2", f".b16|.b64|{_dots(INT)}|.f32|.f64"),
                   ("v4", ".b16|.u16|.u32|.s16|.s32|.f32")):
    _n = _v[1]
    _add(f"mov.{_v}.<T:{_types}> {{d_:T*{_n}}}, {{a:T*{_n}}}")
    _add(f"mov.{_v}.<T:{_types}> {{d_:T*{_n}}}, a:T")
    _add(f"mov.{_v}.b32 {{d_:b32*{_n}}}, {{a_:b32*{_n}}}")
    _add(f"mov.{_v}.b32 {{d_:b32*{_n}}}, a:b32")
_add("selp.<T:.b16|.b32|.b64|.u16|.u32|.u64|.s16|.s32|.s64|.f32|.f64> d:T, a:T, a:T, a:pred")
_CMP_INT = ".eq|.ne|.lt|.le|.gt|.ge|.lo|.ls|.hi|.hs"
_CMP_FLT = ".eq|.ne|.lt|.le|.gt|.ge|.equ|.neu|.ltu|.leu|.gtu|.geu|.num|.nan"
# setp writes p, or p|q (q the complement); the sink may stand for either one (not both)
_P = "d_:pred|p"
for cmp, types in ((_CMP_INT, ".u16|.u32|.u64"), (".eq|.ne|.lt|.le|.gt|.ge", ".s16|.s32|.s64"),
                   (".eq|.ne", ".b16|.b32|.b64")):
    _add(f"setp<C:{cmp}><T:{types}> {_P}, a:T, a:T")
    _add(f"setp<C:{cmp}><B:.and|.or|.xor><T:{types}> {_P}, a:T, a:T, a:pred")
_add(f"setp<C:{_CMP_FLT}>{{.ftz}}.f32 {_P}, a:f32, a:f32")
_add(f"setp<C:{_CMP_FLT}><B:.and|.or|.xor>{{.ftz}}.f32 {_P}, a:f32, a:f32, a:pred")
_add(f"setp<C:{_CMP_FLT}>.f64 {_P}, a:f64, a:f64")
_add(f"setp<C:{_CMP_FLT}><B:.and|.or|.xor>.f64 {_P}, a:f64, a:f64, a:pred")
# half precision (f16 PTX ISA 4.2 sm_53, bf16 7.8 sm_90): registers of exactly their size, no
# immediate ("Arguments mismatch"); the scalar types write p alone ("Predicate output not
# allowed" for p|q), the packed ones p or p|q; no .ftz for the .bf16 types, whose c is a
# register too (as set's)
for _t, _ftz, _sm, _c in (("f16", "{.ftz}", "53", "a"), ("bf16", "", "90", "r")):
    for _x, _dst in (("", "d_:pred"), ("x2", _P)):
        _add(f"setp<C:{_CMP_FLT}>{_ftz}.{_t}{_x} {_dst}, r:{_t}{_x}, r:{_t}{_x}; sm={_sm}")
        _add(f"setp<C:{_CMP_FLT}><B:.and|.or|.xor>{_ftz}.{_t}{_x} {_dst}, r:{_t}{_x}, "
             f"r:{_t}{_x}, {_c}:pred; sm={_sm}")

# ----------------------------------------------------------------------------- warp collectives
_add("shfl.sync<M:.up|.down|.bfly|.idx>.b32 d:b32|p, a:b32, a:b32, a:b32, a:u32")
_add("shfl<M:.up|.down|.bfly|.idx>.b32 d:b32|p, a:b32, a:b32, a:b32; removed=70")
_add("vote.sync<M:.all|.any|.uni>.pred d:pred, a:pred, a:u32")
_add("vote.sync.ballot.b32 d:b32, a:pred, a:u32")
_add("vote<M:.all|.any|.uni>.pred d:pred, a:pred; removed=70")
_add("vote.ballot.b32 d:b32, a:pred; removed=70")
_add("match.any.sync.<T:.b32|.b64> d:u32, a:T, a:u32; sm=70")
_add("match.all.sync.<T:.b32|.b64> d_:u32|p, a:T, a:u32; sm=70")  # (not match.any: measured)
_add("activemask.b32 d:b32")
_add("redux.sync<O:.add|.min|.max>.<T:.u32|.s32> d:T, a:T, a:u32; sm=80")
_add("redux.sync<O:.and|.or|.xor>.b32 d:u32, a:u32, a:u32; sm=80")
# (ptxas 13.0: "Instruction 'redux.f32' not supported on .target 'sm_110a'")
_add("redux.sync<O:.min|.max>{.abs}{.NaN}.f32 d:f32, a:f32, a:u32; sm=100f-110")
_add("elect.sync d_:u32|p!, a:u32; sm=90")

# ----------------------------------------------------------------------------- barriers, fences
# ptxas 13.0 reads `.cta` first, then the sub-instruction (.sync, .arrive, .red), then the rest
# in any order: barrier.red.or.pred.aligned and barrier.cta.red.u32.aligned.popc assemble,
# barrier.sync.cta ("Illegal modifier '.cta'") and barrier.aligned.red ("Unknown modifier
# '.red'") do not. barrier.aligned.sync and barrier.cta.aligned.sync assemble too (not
# .aligned.arrive), which the ISA does not write: undocumented.
for op, aligned in (("bar", ""), ("barrier", "{.aligned}")):
    for cta, lead in (("", 1), (".cta", 2)):
        _add(f"{op}{cta}.sync{aligned} ai:u32:0..15, ?ai:u32:..%32; head={lead}")
        # (ptxas 13.0: "Instruction 'bar.arrive' requires a non-zero thread count argument";
        # -32 assembles)
        _add(f"{op}{cta}.arrive{aligned} ai:u32:0..15, ai:u32:..%32~0; head={lead}")
        for b in ("", "ai:u32:..%32, "):
            _add(f"{op}{cta}.red.popc{aligned}.u32 d:u32, ai:u32:0..15, {b}a:pred; head={lead}")
            _add(f"{op}{cta}.red<O:.and|.or>{aligned}.pred d:pred, ai:u32:0..15, {b}a:pred; "
                 f"head={lead}")
        if aligned:
            _add(f"{op}{cta}.aligned.sync ai:u32:0..15, ?ai:u32:..%32; head={lead + 1} "
                 "undocumented")
_add("bar.warp.sync a:u32; head=1")  # every target (ptxas 12.4 takes it for sm_50)
_add("barrier.cluster.arrive{.release|.relaxed@90}{.aligned}; sm=90")
_add("barrier.cluster.wait{.acquire}{.aligned}; sm=90")
_add("membar<L:.cta|.gl|.sys>")
_add("membar.proxy.alias; sm=70")
_add("fence{.sc|.acq_rel|.acquire|.release}<S:.cta|.cluster@90|.gpu|.sys>; sm=70")
# .proxy names the fence: 'fence.async.proxy' is "Unknown modifier '.proxy'" (ptxas 13.0)
_add("fence.proxy.alias; sm=70; head=1")
_add("fence.proxy.async{.global|.shared::cta|.shared::cluster}; sm=90; head=1")
_add("fence.mbarrier_init.release.cluster; sm=90")
_add("fence.proxy.tensormap::generic.release<S:.cta|.cluster|.gpu|.sys>; sm=90; head=1")
_add("fence.proxy.tensormap::generic.acquire<S:.cta|.cluster|.gpu|.sys> [A], i:128; sm=90; "
     "head=1")
# uni-directional fences restricted to shared memory (PTX ISA 8.6; CCCL fence_sync_restrict.h,
# fence_proxy_async_generic_sync_restrict.h)
_add("fence.acquire.sync_restrict::shared::cluster.cluster; sm=90")
_add("fence.release.sync_restrict::shared::cta.cluster; sm=90")
_add("fence.proxy.async::generic.acquire.sync_restrict::shared::cluster.cluster; sm=90; head=1")
_add("fence.proxy.async::generic.release.sync_restrict::shared::cta.cluster; sm=90; head=1")
# PTX ISA 9.3-9.5 (each taken by ptxas from the toolkit named and rejected by 13.2's, measured;
# CCCL fence_proxy_{fabric_fabric,fabric_generic,generic_fabric}_alias.h, fence_proxy_alias.h,
# fence_proxy_async_generic_sync_restrict.h, fence.h): the fabric proxy's alias fences, .sys
# with .acquire or .release only ("Illegal modifier '.gpu'", ".acquire/.release modifier
# required"); the alias proxy fence given a semantics; the release of reads of the cluster's
# shared memory; and the release fence restricted to reads (.release.sys alone: "Modifier
# '.sync_restrict::read' cannot be combined with modifier '.gpu'")
for _pair in ("fabric::fabric", "fabric::generic", "generic::fabric"):
    _add(f"fence.proxy.{_pair}.alias<M:.acquire|.release>.sys; sm=100; head=1; toolkit=13.3")
_add("fence.proxy.alias<M:.acquire|.release>.sys; sm=90; head=1; toolkit=13.4")
_add("fence.proxy.async::generic.release.sync_restrict::shared::cluster::read<S:.cta|.cluster>; "
     "sm=90; head=1; toolkit=13.4")
_add("fence.alias.sync_restrict::read.release.sys; sm=90; toolkit=13.5")
_add("griddepcontrol<M:.launch_dependents|.wait>; sm=90")
_add("nanosleep.u32 a:u32; sm=70")
# (setmaxnreg.inc/.dec is the name: 'setmaxnreg.sync.aligned.inc.u32' is "Not a name of any
# known instruction: 'setmaxnreg'", ptxas 13.0)
for _m in ("inc", "dec"):
    _add(f"setmaxnreg.{_m}.sync.aligned.u32 i:24..256%8; sm=90a,100f,120f; head=1")
    _add(f"setmaxnreg.{_m}.sync.aligned.s32 i:24..256%8; sm=90a,100f,120f; undocumented; "
         "head=1")

# ----------------------------------------------------------------------------- async copies
for level, sizes in (("ca", "4|8|16"), ("cg", "16")):
    head = (f"cp.async.{level}<S:.shared|.shared::cta>.global"
            "{.L2::64B|.L2::128B|.L2::256B}")
    # src-size reads at most cp-size bytes (ptxas 13.0 for 'cp.async.ca... 4, 8':
    # "Argument 3 of instruction 'cp.async': value '8' out of range"); an immediate there is a
    # src-size, never the ignore-src predicate. The destination's space comes first
    # (positional): 'cp.async.ca.global.shared' is "State space incorrect for instruction
    # 'cp.async'" (ptxas 13.0)
    keys = "sm=80; positional"
    _add(f"{head} [A], [A], i:{sizes}, ?a:u32:<=#2; {keys}")
    _add(f"{head} [A], [A], i:{sizes}, r:pred; {keys}")
    _add(f"{head}.L2::cache_hint [A], [A], i:{sizes}, ai:u64; {keys}")
    _add(f"{head}.L2::cache_hint [A], [A], i:{sizes}, a:u32:<=#2, ai:u64; {keys}")
    _add(f"{head}.L2::cache_hint [A], [A], i:{sizes}, r:pred, ai:u64; {keys}")
_add("cp.async.commit_group; sm=80")
_add("cp.async.wait_group i:*; sm=80")
_add("cp.async.wait_all; sm=80")
# ('cp.async.mbarrier.noinc.arrive' is "Unknown modifier '.arrive'")
_add("cp.async.mbarrier.arrive{.noinc}{.shared|.shared::cta}.b64 [A]; sm=80; head=3")

# matrix fragments (ldmatrix, stmatrix, movmatrix, mma): grammar_data_tensor.py

# ----------------------------------------------------------------------------- address ops
_SPACE = ".global|.shared|.shared::cta|.shared::cluster@90|.local|.const|.param|.param::entry"
# ptxas 13.0 takes .u32 only with 32-bit addressing, which it no longer supports
_add(f"cvta<S:{_SPACE}>.u64 d:u64, a:u64")
# ('cvta.global.to.u64' is "Unknown modifier '.to'")
_add(f"cvta.to<S:{_SPACE}>.u64 d:u64, a:u64; head=1")
_add(f"cvta<S:{_SPACE}>.u32 d:u32, a:u32; rejected=address32")
_add(f"cvta.to<S:{_SPACE}>.u32 d:u32, a:u32; rejected=address32; head=1")
_add(f"isspacep<S:{_SPACE}> d:pred, a:int")
_add("mapa{.shared::cluster}.<T:.u32|.u64> d:T, a:T, a:u32; sm=90")
_add("mapa{.shared::cluster}.<T:.s32|.s64> d:T, a:T, a:u32; sm=90; undocumented")
_add("getctarank{.shared::cluster}.<T:.u32|.u64> d:u32, a:T; sm=90")
_add("getctarank{.shared::cluster}.<T:.s32|.s64> d:u32, a:T; sm=90; undocumented")

# ----------------------------------------------------------------------------- loads and stores
_NARROW = ".b8|.b16|.b32|.u8|.u16|.u32|.s8|.s16|.s32|.f32"
_WIDE = ".b64|.u64|.s64|.f64"
_LD_TYPES = f"{_NARROW}|{_WIDE}"
# ptxas 13.0: the cache, eviction and prefetch qualifiers exist for .global (and generic)
# addresses only ("State space incorrect for feature 'cache prefetching'", "Modifier
# '.evict_normal' cannot be applied to '.shared' space"); .volatile and the memory-order forms
# not for .local/.param/.const; st has no .const or kernel-parameter space.
_LD_SPACES = ".const|.global|.local|.param|.param::entry|.param::func|.shared|.shared::cta|" \
             ".shared::cluster@90"
_ST_SPACES = ".global|.local|.shared|.shared::cta|.shared::cluster@90"
_ORDERED_SPACES = ".global|.shared|.shared::cta|.shared::cluster@90"
_EVICT = ".L1::evict_normal|.L1::evict_unchanged|.L1::evict_first|.L1::evict_last|" \
         ".L1::no_allocate"
_PREFETCH = "{.L2::64B|.L2::128B|.L2::256B@80}"
# (vector slot, destination, source, types): scalars; .v2 of any type; .v4 of up to 32 bits
_SHAPES = (("", "d:T", "a:T", _LD_TYPES), ("<V:.v2>", "{d:T*V}", "{a:T*V}", _LD_TYPES),
           ("<V:.v4>", "{d:T*V}", "{a:T*V}", _NARROW))
_SCOPE = "<S:.cta|.cluster@90|.gpu|.sys>"


def _memory_forms(op: str, shapes: tuple[tuple[str, str, str, str], ...] = _SHAPES,
                  wide: bool = False) -> None:
    """The ld/st forms of ``shapes``; ``wide``: 256-bit accesses, which ptxas 13.0 takes for
    .global (or generic) addresses on sm_100 and newer only ("global state space expected for
    feature '256 bit wide load/store'"), with every qualifier the narrower accesses take."""
    load = op == "ld"
    spaces = "{.global}" if wide else "{" + (_LD_SPACES if load else _ST_SPACES) + "}"
    ordered_spaces = "{.global}" if wide else "{" + _ORDERED_SPACES + "}"
    cops = "{.ca|.cg|.cs|.lu|.cv}" if load else "{.wb|.cg|.cs|.wt}"
    order = ".acquire" if load else ".release"
    prefetch = _PREFETCH if load else ""
    # ptxas reads several `sm=` keys as their join (the strongest)
    sm = "; sm=100" if wide else ""
    # the L2 eviction priority, beside the L1 one, for 256-bit accesses only (ISA ld/st:
    # .level2::eviction_priority; ptxas 13.0 rejects it on narrower ones)
    l2 = "{.L2::evict_first|.L2::evict_last|.L2::evict_normal}" if wide else ""
    evict = "{" + _EVICT + "}" + l2
    cops += l2  # (with a cache operator too: ld.global.nc.ca.L2::evict_first.v8.u32)
    for vec, dst, src, types in shapes:
        ops = f"{dst}, [A]" if load else f"[A], {src}"
        policy = f"{ops}, ai:u64; sm=80{sm}"
        t = f"<T:{types}>"
        _add(f"{op}{{.weak}}{spaces}{cops}{vec}{t} {ops}{sm}")
        if load or not wide:  # (a wide store's spaces are .global alone: the form above)
            _add(f"{op}{{.weak}}{{.global}}{cops}{prefetch}{vec}{t} {ops}{sm}")
        _add(f"{op}{{.weak}}{{.global}}{cops}{prefetch}.L2::cache_hint{vec}{t} {policy}")
        _add(f"{op}{{.weak}}{{.global}}{evict}{prefetch}{vec}{t} {ops}{sm}")
        _add(f"{op}{{.weak}}{{.global}}{evict}{prefetch}.L2::cache_hint{vec}{t} {policy}")
        for sem in (".relaxed", order):
            _add(f"{op}{sem}{_SCOPE}{ordered_spaces}{vec}{t} {ops}; sm=70{sm}")
            _add(f"{op}{sem}{_SCOPE}{{.global}}{evict}{prefetch}{vec}{t} {ops}; sm=70{sm}")
            _add(f"{op}{sem}{_SCOPE}{{.global}}{evict}{prefetch}.L2::cache_hint{vec}{t} "
                 f"{policy}")
        _add(f"{op}.volatile{ordered_spaces}{vec}{t} {ops}{sm}")
        if load:
            _add(f"ld.volatile{{.global}}{_PREFETCH}{vec}{t} {ops}{sm}")
            # the non-coherent (read-only) path
            _add(f"ld.global{{.ca|.cg|.cs}}{l2}.nc{_PREFETCH}{vec}{t} {ops}{sm}")
            _add(f"ld.global{{.ca|.cg|.cs}}{l2}.nc{_PREFETCH}.L2::cache_hint{vec}{t} {policy}")
            _add(f"ld.global.nc{evict}{_PREFETCH}{vec}{t} {ops}{sm}")
            _add(f"ld.global.nc{evict}{_PREFETCH}.L2::cache_hint{vec}{t} {policy}")


# 128-bit scalars (.b128, sm_70): every space and qualifier of the narrower scalars; ptxas 13.0
# has no vector of them ("Vector type too large, exceeds 128 bit limit")
_B128 = (("", "d:T", "a:T", ".b128@70"),)
# 256-bit accesses: .v4 of 64-bit types and .v8 of 32-bit ones (not of b16 or packed halves);
# a 256-bit store may skip elements with the sink (ISA st; ptxas 13.0: "Sink '_' not allowed as
# a source operand" in any narrower vector)
_WIDE_SHAPES = (("<V:.v4>", "{d:T*V}", "{a_:T*V}", _WIDE),
                ("<V:.v8>", "{d:T*V}", "{a_:T*V}", ".b32|.u32|.s32|.f32"))
for _op in ("ld", "st"):
    _memory_forms(_op)
    _memory_forms(_op, _B128)
    _memory_forms(_op, _WIDE_SHAPES, wide=True)
# .v8 of 8- and 16-bit types (128 bits): ptxas 13.0 takes the stores wherever st takes .v4
# (measured, sm_75 on), the ISA does not list them: undocumented. The loads stay unjudged:
# ptxas 13.0 crashes on them (ld.global.v8.b16: segmentation fault, sm_90 and sm_100a), and a
# crash is no verdict.
_first = len(FORMS)
_memory_forms("st", (("<V:.v8>", "{d:T*V}", "{a:T*V}", ".b8|.b16|.u8|.u16|.s8|.s16"),))
FORMS[_first:] = [f"{f}; undocumented" for f in FORMS[_first:]]
_add("ld.mmio.relaxed.sys{.global}<T:.b8|.b16|.b32|.b64|.u8|.u16|.u32|.u64|.s8|.s16|.s32|.s64|"
     ".f32|.f64|.b128> d:T, [A]; sm=70")
_add("st.mmio.relaxed.sys{.global}<T:.b8|.b16|.b32|.b64|.u8|.u16|.u32|.u64|.s8|.s16|.s32|.s64|"
     ".f32|.f64|.b128> [A], a:T; sm=70")
_add("ldu{.global}<T:.b8|.b16|.b32|.b64|.u8|.u16|.u32|.u64|.s8|.s16|.s32|.s64|.f32|.f64|"
     ".b128@70> d:T, [A]")
_add("ldu{.global}<V:.v2><T:.b8|.b16|.b32|.b64|.u8|.u16|.u32|.u64|.s8|.s16|.s32|.s64|.f32|"
     ".f64> {d:T*V}, [A]")
_add(f"ldu{{.global}}<V:.v4><T:{_NARROW}> {{d:T*V}}, [A]")

# ----------------------------------------------------------------------------- surfaces
# (ISA suld, sust.) The coordinates are a scalar or a one-element vector for .1d, two for .2d,
# four for .3d (the fourth ignored), the layer and one for .a1d, the layer and three for .a2d.
# ptxas 13.0 also takes a scalar, or a vector of four (of two for .1d), for every geometry, and
# rejects fewer elements or three ("Operand vector size doesn't match geometry", "Illegal vector
# size: 3"): undocumented forms. The data is a scalar, or a vector of .v2/.v4's length
# ("Argument vector size mismatch"; no .v4 of .b64: "Vector type too large"), in registers as
# wide as the type or wider (grammar._RELAXED), and the clamp mode is required ("Clamp modifier
# required"). ptxas takes a data vector where no .v2/.v4 is written, and a scalar under sust's
# .v2/.v4, but moves one element in the first case (sm_90 SASS: 'sust.b.1d.b32 [s, {x}],
# {a, b}' is the SUST of 'a' alone, as 'sust.p...b32' writes the R channel only and 'suld'
# loads the first element) and the registers after the scalar in the second: the forms keep
# the ISA's data shapes, so the operand check reports both, as issues ptxas takes
# (Issue.ptxas_takes: PTX207's errors, ptxas's accept in benchmarks/ptxas_agreement.py). The
# surface is a .u64 handle (operand_check._surface_handle_issue). sust.p stores .b32 elements;
# ptxas takes the layered geometries and a cache operator for it too (the ISA has neither).
_SURF_COORDS: dict[str, tuple[str, ...]] = {
    "1d": ("a:s32", "{a:s32*1}"), "2d": ("{a:s32*2}",), "3d": ("{a:s32*4}",),
    "a1d": ("{a:b32*2}",), "a2d": ("{a:b32*4}",),
}
_SURF_LAX_COORDS: dict[str, tuple[str, ...]] = {
    "1d": ("{a:s32*2}", "{a:s32*4}"), "2d": ("a:s32", "{a:s32*4}"), "3d": ("a:s32",),
    "a1d": ("a:b32", "{a:b32*4}"), "a2d": ("a:b32",),
}
_SURF_DATA = (("", "a:T", ".b8|.b16|.b32|.b64"), ("<V:.v2>", "{a:T*V}", ".b8|.b16|.b32|.b64"),
              ("<V:.v4>", "{a:T*V}", ".b8|.b16|.b32"))
_SURF_MODE = "(.trap|.clamp|.zero)"
for _geometry in _SURF_COORDS:
    for _coords, _keys in [(c, "") for c in _SURF_COORDS[_geometry]] + [
            (c, "; undocumented") for c in _SURF_LAX_COORDS[_geometry]]:
        _address = f"[A, {_coords}]"
        for _vec, _data, _types in _SURF_DATA:
            _add(f"sust.b.{_geometry}{{.wb|.cg|.cs|.wt}}{_vec}<T:{_types}>{_SURF_MODE} "
                 f"{_address}, {_data}{_keys}")
            _add(f"suld.b.{_geometry}{{.ca|.cg|.cs|.cv}}{_vec}<T:{_types}>{_SURF_MODE} "
                 f"{_data.replace('a:', 'd:')}, {_address}{_keys}")
            _p = _keys or ("; undocumented" if _geometry.startswith("a") else "")
            _add(f"sust.p.{_geometry}{_vec}<T:.b32>{_SURF_MODE} {_address}, {_data}{_p}")
            _add(f"sust.p.{_geometry}(.wb|.cg|.cs|.wt){_vec}<T:.b32>{_SURF_MODE} {_address}, "
                 f"{_data}; undocumented")

# ----------------------------------------------------------------------------- textures
# (ISA tex, tld4.) Written down: tex on .1d/.2d/.3d textures and tld4 on .2d ones, without the
# mipmap modes (PARTIAL below). The result is four elements of the .dtype (.v4), or two .f16x2
# words (.v2), optionally with a residency predicate (d|p, PTX ISA 7.1: ptxas 13.0 names
# "Texture instruction with optional predicate result" below it); the coordinates c are a
# scalar or a one-element vector for .1d, two elements for .2d, four for .3d (the fourth
# ignored), of the .ctype (tld4: .f32); an optional sampler b comes between the texture and c
# ([a, b, c]); the optional offsets e are .s32, one per dimension (.3d: four); the optional
# depth compare value f is .f32, with .f32 coordinates only, and not for .3d. ptxas 13.0 also
# takes, and the ISA does not document: two or four coordinates for .1d and four for .2d, a
# scalar for a .2d/.3d coordinate vector (not after a sampler: "Parsing error"), a scalar or a
# longer vector of offsets for .1d and a scalar or four for .2d (after a sampler: one, two or
# four, for every geometry), and a scalar after integer coordinates (.s32, without offsets).
# The types are read by position (.v4.f32.s32: f32 results, s32 coordinates), each element by
# its class, not widened (an .f32 register for .u32 results, an .f32 offset: "Arguments
# mismatch"). ptxas warns "Vector Type not specified properly" where .v4/.v2 is not right
# before the result type (tex.1d.s32.f32.v4), as for ld.
_TEX_COORDS: dict[str, tuple[tuple[str, str], ...]] = {
    "1d": (("a:C", ""), ("{a:C*1}", ""), ("{a:C*2}", "u"), ("{a:C*4}", "u")),
    "2d": (("{a:C*2}", ""), ("{a:C*4}", "u"), ("a:C", "u")),
    "3d": (("{a:C*4}", ""), ("a:C", "u")),
}
_TEX_OFFSETS: dict[str, tuple[tuple[str, str], ...]] = {
    "1d": (("{a:s32*1}", ""), ("a:s32", "u"), ("{a:s32*2}", "u"), ("{a:s32*4}", "u")),
    "2d": (("{a:s32*2}", ""), ("{a:s32*4}", "u"), ("a:s32", "u")),
    "3d": (("{a:s32*4}", ""),),
}
# after a sampler, ptxas 13.0 takes offsets of one, two or four elements for every geometry
_SAMPLED_OFFSETS = {
    geometry: (*shapes, *((v, "u") for v in ("{a:s32*1}", "{a:s32*2}", "{a:s32*4}")
                          if v not in dict(shapes)))
    for geometry, shapes in _TEX_OFFSETS.items()
}
_TEX_RESULTS = (("<V:.v4>", ".u32|.s32|.f32|.f16"), ("<V:.v2>", ".f16x2"))


def _texture_forms(mnemonic: str, geometry: str, ctypes: tuple[str, ...]) -> None:
    """The forms of ``mnemonic`` (its result vector and types still to come) on one geometry:
    with and without a sampler, offsets and depth compare value, each shape of coordinates
    and offsets; ``undocumented`` where ptxas's taking a shape is all that says so."""
    for vec, dtypes in _TEX_RESULTS if mnemonic == "tex" else (("<V:.v4>", ".u32|.s32|.f32"),):
        for ctype in ctypes:
            head = f"{mnemonic}.{geometry}{vec}<T:{dtypes}>.{ctype}"
            for coords, lax in _TEX_COORDS[geometry]:
                coords = coords.replace("C", ctype)
                addresses = [(f"[A, {coords}]", lax, _TEX_OFFSETS[geometry])]
                if coords.startswith("{"):
                    addresses.append((f"[A, r:u64, {coords}]", lax, _SAMPLED_OFFSETS[geometry]))
                for (address, lax_address, offset_shapes), (result, keys) in itertools.product(
                        addresses, (("{d:T*V}", ""), ("{d:T*V}|p!", "; ptx=71"))):
                    base = f"{head} {result}, {address}"
                    tails = [("", "")]
                    for offsets, lax_offsets in offset_shapes:
                        tails.append((f", {offsets}", lax_offsets))
                        if ctype == "f32" and geometry != "3d":
                            tails.append((f", {offsets}, a:f32", lax_offsets))
                    if geometry != "3d":
                        tails.append((", a:f32", "") if ctype == "f32" else (", a:s32", "u"))
                    # (.1d's scalar offset and scalar after integer coordinates are one form)
                    for tail in dict.fromkeys(t for t, _ in tails):
                        documented = not lax_address and any(
                            t == tail and not lax_tail for t, lax_tail in tails)
                        _add(f"{base}{tail}; positional{keys}"
                             f"{'' if documented else '; undocumented'}")


for _geometry in ("1d", "2d", "3d"):
    _texture_forms("tex", _geometry, ("s32", "f32"))
_texture_forms("tld4.(.r|.g|.b|.a)", "2d", ("f32",))

# ----------------------------------------------------------------------------- atomics
# ptxas 13.0: .L2::cache_hint only for .global (or generic) addresses; red has no .acquire,
# .acq_rel or .exch.
_ATOM_SCOPE = "{.cta|.cluster@90|.gpu|.sys}"
_ATOM_SPACE = "{.global|.shared|.shared::cta|.shared::cluster@90}"
_ATOM_OPS = (
    ("<O:.and|.or|.xor|.exch>", ".b32|.b64"),
    (".add", ".u32|.s32|.u64|.f32|.f64"),
    ("<O:.inc|.dec>", ".u32"),
    ("<O:.min|.max>", ".u32|.s32|.u64|.s64"),
    (".add.noftz", ".f16@70|.f16x2|.bf16@90|.bf16x2@90"),
)
for op, types in _ATOM_OPS:
    for prefix, sems in (("atom", ".relaxed@70|.acquire@70|.release@70|.acq_rel@70"),
                         ("red", ".relaxed@70|.release@70")):
        if prefix == "red" and "exch" in op:
            op = "<O:.and|.or|.xor>"
        dst = "d_:T, " if prefix == "atom" else ""  # ptxas takes the sink for the old value
        _add(f"{prefix}{{{sems}}}{_ATOM_SCOPE}{_ATOM_SPACE}{op}<T:{types}> {dst}[A], a:T")
        _add(f"{prefix}{{{sems}}}{_ATOM_SCOPE}{{.global}}{op}.L2::cache_hint<T:{types}> "
             f"{dst}[A], a:T, ai:u64; sm=80")
_ATOM_ALL = "{.relaxed@70|.acquire@70|.release@70|.acq_rel@70}" + _ATOM_SCOPE + _ATOM_SPACE
_add(f"atom{_ATOM_ALL}.cas<T:.b32|.b64|.b16@70> d_:T, [A], a:T, a:T")
_add(f"atom{_ATOM_ALL}<O:.and|.or|.xor>.b32 d_:b32, [A], a:b32, af:b32; undocumented")

# ----------------------------------------------------------------------------- mbarrier
_MB_CTA = "{.shared|.shared::cta}"
# ptxas 13.0: the ordering (.release/.acquire/.relaxed) and the scope come together or not at
# all ("Modifier '.cta' requires order"); a remote (.shared::cluster) arrive writes the sink.
# The state is a 64-bit integer: an .f64 register (or a floating-point literal) is "Arguments
# mismatch"; an integer immediate is taken where it is read.
_ARRIVE_SEM = ("", "<M:.release|.relaxed@90><S:.cta|.cluster@90>")
# An arrival count is at least 1 (ptxas 13.0: "value '0' expected to be a non-zero
# positive", for 0 and -1); a tx-count, init's count and expect_tx's may be 0.
_COUNT = "ai:u32:1.."
_WAIT_SEM = ("", "<M:.acquire|.relaxed@90><S:.cta|.cluster@90>")
_add(f"mbarrier.init{_MB_CTA}.b64 [A], a:u32; sm=80")
_add(f"mbarrier.inval{_MB_CTA}.b64 [A]; sm=80")
# the barrier's layout (PTX ISA 9.3 by ptxas 13.3-13.5, which take it from .version 9.3 on,
# where CCCL mbarrier_init.h and mbarrier_check_layout.h say 9.4; sm_90): init picks it, and
# check_layout tells whether a barrier has it (the predicate only: "Arguments mismatch" for
# a .b32 register)
_add(f"mbarrier.init<L:.layout::v0|.layout::v1>{_MB_CTA}.b64 [A], a:u32; sm=90; toolkit=13.3")
_add(f"mbarrier.check_layout<L:.layout::v0|.layout::v1>{_MB_CTA}.b64 d:pred, [A]; sm=90; "
     "toolkit=13.3")
for sem in _ARRIVE_SEM:
    _add(f"mbarrier.arrive{sem}{_MB_CTA}.b64 d_:u64, [A]; sm=80")
    _add(f"mbarrier.arrive{sem}{_MB_CTA}.b64 d_:u64, [A], {_COUNT}; sm=90")
    _add(f"mbarrier.arrive_drop{sem}{_MB_CTA}.b64 d_:u64, [A]; sm=80")
    _add(f"mbarrier.arrive_drop{sem}{_MB_CTA}.b64 d_:u64, [A], {_COUNT}; sm=90")
    for op in ("arrive.expect_tx", "arrive_drop.expect_tx"):
        _add(f"mbarrier.{op}{sem}{_MB_CTA}.b64 d_:u64, [A], a:u32; sm=90")
    for op in ("arrive.noComplete", "arrive_drop.noComplete"):
        only_cta = sem.replace("<M:.release|.relaxed@90><S:.cta|.cluster@90>", ".release.cta")
        _add(f"mbarrier.{op}{only_cta}{_MB_CTA}.b64 d_:u64, [A], {_COUNT}; sm=80")
_CLUSTER_SEM = ("", "<M:.release|.relaxed><S:.cta|.cluster>")
for sem in _CLUSTER_SEM:
    _add(f"mbarrier.arrive{sem}.shared::cluster.b64 _, [A], ?{_COUNT}; sm=90")
    _add(f"mbarrier.arrive_drop{sem}.shared::cluster.b64 _, [A], ?{_COUNT}; sm=90")
    for op in ("arrive.expect_tx", "arrive_drop.expect_tx"):
        _add(f"mbarrier.{op}{sem}.shared::cluster.b64 _, [A], a:u32; sm=90")
for op in ("expect_tx", "complete_tx"):
    for sem in ("", ".relaxed<S:.cta|.cluster>"):
        _add(f"mbarrier.{op}{sem}{{.shared|.shared::cta|.shared::cluster}}.b64 [A], a:u32; "
             "sm=90")
# the state a wait tests (a .b64 from mbarrier.arrive) may be a constant: ptxas 13.0 assembles
# `mbarrier.test_wait.shared.b64 p, [rd1], 1` (benchmark mutation register-as-immediate)
for sem in _WAIT_SEM:
    _add(f"mbarrier.test_wait{sem}{_MB_CTA}.b64 d:pred, [A], ai:u64; sm=80")
    _add(f"mbarrier.test_wait.parity{sem}{_MB_CTA}.b64 d:pred, [A], a:u32; sm=80")
    _add(f"mbarrier.try_wait{sem}{_MB_CTA}.b64 d:pred, [A], ai:u64, ?a:u32; sm=90")
    _add(f"mbarrier.try_wait.parity{sem}{_MB_CTA}.b64 d:pred, [A], a:u32, ?a:u32; sm=90")
# PTX ISA 9.3 (ptxas 13.3 takes them at .version 9.3, where CCCL mbarrier_try_wait*.h and
# mbarrier_test_wait*.h say 9.4; sm_90): a wait on the primary phase, whose second predicate
# says whether a report was seen and whose .b8 (before the address) the report's value, and a
# wait on a conditional phase, by parity only (".parity modifier required") into one predicate
# ("Arguments mismatch" for a pair); the CTA's own barrier only ("Illegal modifier '::cluster'")
_PRIMARY, _CONDITIONAL = ".phase_type::primary", ".phase_type::conditional"
for sem in _WAIT_SEM:
    for op, state, hint in (("test_wait", "ai:u64", ""), ("test_wait.parity", "a:u32", ""),
                            ("try_wait", "ai:u64", ", ?a:u32"),
                            ("try_wait.parity", "a:u32", ", ?a:u32")):
        for report in ("", " d:b8!,"):
            _add(f"mbarrier.{op}{_PRIMARY}{sem}{_MB_CTA}.b64 d:pred|p,{report} [A], {state}"
                 f"{hint}; sm=90; toolkit=13.3")
        if "parity" in op:
            _add(f"mbarrier.{op}{_CONDITIONAL}{sem}{_MB_CTA}.b64 d:pred, [A], {state}{hint}; "
                 "sm=90; toolkit=13.3")
# PTX ISA 9.4 (ptxas 13.4; CCCL mbarrier_arrive.h, mbarrier_arrive_drop.h,
# mbarrier_complete_tx.h), sm_107 only ("Feature 'mbarrier.arrive.multicast::cluster::32b' not
# supported" on sm_100f, sm_103a, sm_110a, sm_120a): an arrival on, or a completion of, the
# barriers of the CTAs a 32-bit mask names (a register or an immediate; a .b16 is "Arguments
# mismatch"), whose state goes to the sink ("Sink '_' is expected")
_MC32 = "{.shared::cluster}.multicast::cluster::32b.b64"  # (ptxas 13.5 takes it left out)
for sem in _CLUSTER_SEM:
    for op in ("arrive", "arrive_drop"):
        _add(f"mbarrier.{op}{sem}{_MC32} _, [A], ai:u32; sm=107f; toolkit=13.4")
        _add(f"mbarrier.{op}{sem}{_MC32} _, [A], {_COUNT}, ai:u32; sm=107f; toolkit=13.4")
        _add(f"mbarrier.{op}.expect_tx{sem}{_MC32} _, [A], a:u32, ai:u32; sm=107f; "
             "toolkit=13.4")
for sem in ("", ".relaxed<S:.cta|.cluster>"):
    _add(f"mbarrier.complete_tx{sem}{_MC32} [A], a:u32, ai:u32; sm=107f; toolkit=13.4")
_add("mbarrier.pending_count.b64 d:u32, ai:u64; sm=80")

# ptxas reads mbarrier's sub-instruction words first ("Unknown modifier '.expect_tx'" in
# mbarrier.arrive.release.cta.expect_tx)
_MBARRIER_OPS = {"init", "inval", "arrive", "arrive_drop", "expect_tx", "complete_tx",
                 "test_wait", "try_wait", "parity", "pending_count", "check_layout"}


def _head(form: str) -> str:
    mnemonic = form.split(" ", 1)[0]
    for bracket in "{(<":
        mnemonic = mnemonic.split(bracket, 1)[0]
    words = mnemonic.split(".")[1:]
    count = 0
    for word in words:
        if word not in _MBARRIER_OPS:
            break
        count += 1
    return f"{form}; head={count}"


FORMS[:] = [_head(f) if f.startswith("mbarrier.") else f for f in FORMS]

# ----------------------------------------------------------------------------- not written yet
# loads of .v8 of 8- and 16-bit types: the ISA has .v8 for 32-bit types only, and ptxas 13.0
# crashes on these (ld.global.v8.b16 for sm_90 and sm_100a: segmentation fault); the stores
# are written down above
_V8_NARROW = frozenset(f"v8+{t}" for t in ("b8", "b16", "u8", "u16", "s8", "s16"))
PARTIAL: dict[str, frozenset[str]] = {
    "cp": frozenset({"bulk", "reduce", "tensor"}),
    "mma": frozenset({"sp", "sp::ordered_metadata", "kind::f8f6f4", "kind::mxf4",
                      "kind::mxf4nvf4", "kind::mxf8f6f4", "kind::f16", "kind::i8",
                      "kind::tf32", "block_scale", "m8n8k32", "m16n8k64", "m8n8k128",
                      "m16n8k128", "m16n8k256", "xor", "popc", "and", "b1", "s4", "u4",
                      "e4m3", "e5m2", "e2m1", "e2m3", "e3m2", "ue8m0", "scale_vec::1X",
                      "scale_vec::2X", "scale_vec::4X", "satfinite::relu", "f64", "rn"}),
    "ldmatrix": frozenset({"b8", "m16n16", "m8n16", "b8x16", "b6x16_p32", "b4x16_p64"}),
    "stmatrix": frozenset({"b8", "m16n8"}),
    "fence": frozenset({"proxy::async", "op_restrict", "async::global", "async::shared::cta",
                        "async::shared::cluster"}),
    "mbarrier": frozenset(),
    "barrier": frozenset(),
    # the async/bulk stores: not written yet. (.f16/.f16x2/.bf16/.bf16x2 and, for
    # ld, .e4m3/.e5m2 are no type of ld or st in the ISA, and ptxas 12.4, 13.0, 13.1 and 13.2
    # reject them on every target: "Unexpected instruction types specified for 'ld'"; judged.
    # .unified is an attribute of ld's address, '[a].unified', which the parser reads; as a
    # word of the opcode ptxas 13.0 rejects it: "Parsing error near '.unified': syntax error")
    "ld": _V8_NARROW,
    "st": frozenset({"async", "bulk", "param", "param::func", "param::entry",
                     "mbarrier::complete_tx::bytes"}),
    "ldu": frozenset({"v8"}),
    # 128-bit and vector atomics, the async (mbarrier-completing) reductions: not written yet
    "atom": frozenset({"b128", "v2", "v4", "v8", "e4m3", "e5m2"}),
    "red": frozenset({"b128", "v2", "v4", "v8", "async", "mbarrier::complete_tx::bytes"}),
    # the mipmap modes and the array, cube and multisample geometries: not written yet
    "tex": frozenset({"base", "level", "grad", "a1d", "a2d", "cube", "acube", "2dms",
                      "a2dms"}),
    "tld4": frozenset({"a2d", "cube", "acube"}),
}

# ----------------------------------------------------------------------------- tensor cores
from ptxlint.ptx import grammar_data_tensor as _tensor  # noqa: E402

FORMS.extend(_tensor.FORMS)
PARTIAL.update(_tensor.PARTIAL)

# ----------------------------------------------------------------------------- scalar families
# math, set/slct, cache control, stack, control flow, cluster launch
from ptxlint.ptx import grammar_data_scalar as _scalar  # noqa: E402

FORMS.extend(_scalar.FORMS)

# ----------------------------------------------------------------------------- more families
# the fabric family (PTX ISA 9.3+) lives in its own module
from ptxlint.ptx import grammar_data_fabric as _fabric  # noqa: E402

FORMS.extend(_fabric.FORMS)

# cvt, multimem, the bulk copies and tensor maps live in their own module
from ptxlint.ptx import grammar_data_async as _async  # noqa: E402

FORMS.extend(_async.FORMS)
for _op, _words in _async.COVERED.items():
    PARTIAL[_op] = PARTIAL.get(_op, frozenset()) - _words
for _op, _words in _async.PARTIAL.items():
    PARTIAL[_op] = PARTIAL.get(_op, frozenset()) | _words

# ----------------------------------------------------------------------------- names
# Words that name the instruction with its opcode come right after it (head=N), the other
# words in any order; measured on ptxas 13.0 (sm_80/sm_90a): 'barrier.arrive.cluster' reads as
# barrier.arrive ("Arguments mismatch"), 'multimem.global.ld_reduce' is "Unknown modifier
# '.ld_reduce'", 'red.relaxed.async' reads as red ("Arguments mismatch"),
# 'createpolicy.L2::evict_last.fractional' is "Unknown modifier '.fractional'",
# 'cp.async.commit_group.bulk' "Unknown modifier '.bulk'" and 'cp.async.bulk.read.wait_group'
# "Unknown modifier '.wait_group'"
_NAMES = {"barrier.cluster.": 1, "multimem.ld_reduce": 1, "red.async.": 1,
          "createpolicy.fractional": 1, "cp.async.bulk.commit_group": 3,
          "cp.async.bulk.wait_group": 3}


def _named(form: str) -> str:
    if "head=" in form:
        return form
    for prefix, count in _NAMES.items():
        if form.startswith(prefix):
            return f"{form}; head={count}"
    return form


FORMS[:] = [_named(f) for f in FORMS]
