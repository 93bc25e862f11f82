"""The tensor-core instruction forms: ``wgmma`` (sm_90a), ``mma.sync`` (every shape ptxas 13.0
assembles), ``ldmatrix``/``stmatrix``/``movmatrix`` and ``tcgen05`` (sm_100a family); notation
in :mod:`ptxlint.ptx.grammar`, appended to :data:`ptxlint.ptx.grammar_data.FORMS`.

Sources: the PTX ISA's syntax blocks for these instructions, CCCL's generated wrappers
(``cuda/__ptx/instructions/generated/tcgen05_*.h``), CUTLASS (``cute/arch/mma_sm*.hpp``,
``copy_sm100.hpp``), each form then cross-checked with ptxas 13.0 by
``benchmarks/ptxas_agreement.py --family wgmma,tcgen05,mma,ldmatrix,stmatrix``. Facts measured
with ptxas 13.0 that the ISA text does not spell out are said where they are used.
"""

from __future__ import annotations

FORMS: list[str] = []
PARTIAL: dict[str, frozenset[str]] = {}


def _add(form: str, undocumented_variants: tuple[tuple[str, str], ...] = ()) -> None:
    FORMS.append(form)
    for old, new in undocumented_variants:
        assert old in form, (old, form)
        FORMS.append(form.replace(old, new) + "; undocumented")


def _dots(words: list[str] | tuple[str, ...]) -> str:
    return "|".join("." + w for w in words)


# ----------------------------------------------------------------------------- wgmma (sm_90a)
# ptxas 13.0, sm_90a only ("not supported on .target 'sm_100a'"). Measured:
# * `.aligned` may be left out (`wgmma.fence.sync`, `wgmma.mma_async.sync.m64n8k16...`
#   assemble): undocumented, so a warning;
# * the sub-instruction word comes first (`wgmma.sync.aligned.fence`: "Unknown modifier"),
#   the other words in any order, but the types by position (d, a, b);
# * scale-d is a predicate or the immediate 0/1; imm-scale-a/b -1 or 1; imm-trans 0 or 1;
#   sp-sel 0/1 for 16-bit and tf32 inputs, 0 for fp8 and integers; A from registers is 4
#   `.b32` (no `.f32` or 16-bit registers), descriptors are 64-bit integers (no `.f64`);
#   an f16 accumulator is packed `.b32` (no `.f32` registers), an f32 one `.f32` or `.b32`;
#   the descriptors may be constants (`..., 5, 6, p, 1, 1, 0, 0` assembles);
# * integer and b1 shapes take n = 8, 16, 24 and the multiples of 16 up to 256, the floating
#   point ones every multiple of 8; `.b1` only with `.and.popc` and dense.
_WG_NOALIGN = ((".sync.aligned", ".sync"),)
_N_ALL = list(range(8, 257, 8))
_N_INT = [8, 16, 24] + list(range(32, 257, 16))


def _shapes(k: int, ns: list[int]) -> str:
    return "<S:" + _dots([f"m64n{n}k{k}" for n in ns]) + ">"


_WG_ACC = {"f16": "{d:u32*S/4}", "f32": "{d:f32*S/2}", "s32": "{d:u32*S/2}"}
_WG_A_REG = "{r:u32*4}"
_SCALE_D = "ai:pred:0|1"
_IMM_SCALE = "i:-1|1, i:-1|1"
_TRANS = "i:0|1"


def _wgmma(sparse: bool, k: int, ns: list[int], prefix: str, types: str, acc: str,
           tail_desc: str, tail_reg: str) -> None:
    sp = ".sp" if sparse else ""
    mnemonic = f"wgmma.mma_async{sp}.sync.aligned{_shapes(k, ns)}{prefix}{types}"
    keys = "; sm=90a; head=1; positional"
    meta = "af:b32, " if sparse else ""
    _add(f"{mnemonic} {_WG_ACC[acc]}, ai:u64, ai:u64, {meta}{tail_desc}{keys}", _WG_NOALIGN)
    _add(f"{mnemonic} {_WG_ACC[acc]}, {_WG_A_REG}, ai:u64, {meta}{tail_reg}{keys}", _WG_NOALIGN)


for _sparse in (False, True):
    _f = 2 if _sparse else 1  # a sparse A doubles k
    _sel16 = "i:0|1, " if _sparse else ""
    _sel0 = "i:0, " if _sparse else ""
    for _acc in ("f16", "f32"):
        _wgmma(_sparse, 16 * _f, _N_ALL, "", f".{_acc}.f16.f16", _acc,
               f"{_sel16}{_SCALE_D}, {_IMM_SCALE}, {_TRANS}, {_TRANS}",
               f"{_sel16}{_SCALE_D}, {_IMM_SCALE}, {_TRANS}")
        _wgmma(_sparse, 32 * _f, _N_ALL, "",
               f".{_acc}<A:.e4m3|.e5m2><B:.e4m3|.e5m2>", _acc,
               f"{_sel0}{_SCALE_D}, {_IMM_SCALE}", f"{_sel0}{_SCALE_D}, {_IMM_SCALE}")
    _wgmma(_sparse, 16 * _f, _N_ALL, "", ".f32.bf16.bf16", "f32",
           f"{_sel16}{_SCALE_D}, {_IMM_SCALE}, {_TRANS}, {_TRANS}",
           f"{_sel16}{_SCALE_D}, {_IMM_SCALE}, {_TRANS}")
    _wgmma(_sparse, 8 * _f, _N_ALL, "", ".f32.tf32.tf32", "f32",
           f"{_sel16}{_SCALE_D}, {_IMM_SCALE}", f"{_sel16}{_SCALE_D}, {_IMM_SCALE}")
    _wgmma(_sparse, 32 * _f, _N_INT, "{.satfinite}", ".s32<A:.s8|.u8><B:.s8|.u8>", "s32",
           f"{_sel0}{_SCALE_D}", f"{_sel0}{_SCALE_D}")
_wgmma(False, 256, _N_INT, "", ".s32.b1.b1.and.popc", "s32", _SCALE_D, _SCALE_D)

_add("wgmma.fence.sync.aligned; sm=90a; head=1", _WG_NOALIGN)
_add("wgmma.commit_group.sync.aligned; sm=90a; head=1", _WG_NOALIGN)
# any non-negative count ("expected to be non-negative integer")
_add("wgmma.wait_group.sync.aligned i:0..; sm=90a; head=1", _WG_NOALIGN)



# ----------------------------------------------------------------------------- matrix fragments
_add("ldmatrix.sync.aligned.m8n8<N:.x1|.x2|.x4>{.trans}{.shared|.shared::cta}.b16 {d:b32*N}, "
     "[A]; sm=75")
_add("stmatrix.sync.aligned.m8n8<N:.x1|.x2|.x4>{.trans}{.shared|.shared::cta}.b16 [A], "
     "{a:b32*N}; sm=90")
_add("movmatrix.sync.aligned.m8n8.trans.b16 d:b32, af:b32; sm=75")
# the 8-bit shapes (PTX ISA 8.6), measured on ptxas 13.0: sm_100 and sm_120 families only
# ("Feature '.m16n16' not supported on .target 'sm_100'"); .m16n16 needs .trans and takes .x1/.x2
# (two registers a matrix), .m8n16 takes no .trans; the 6- and 4-bit source formats unpack to
# .b8x16
_MX8 = "; sm=100f,120f"
_LDSPACE = "{.shared|.shared::cta}"
_add(f"ldmatrix.sync.aligned.m16n16<N:.x1|.x2>.trans{_LDSPACE}.b8 {{d:b32*N*2}}, [A]{_MX8}")
_add(f"ldmatrix.sync.aligned.m16n16<N:.x1|.x2>.trans{_LDSPACE}.b8x16<F:.b6x16_p32|.b4x16_p64> "
     f"{{d:b32*N*2}}, [A]{_MX8}")
_add(f"ldmatrix.sync.aligned.m8n16<N:.x1|.x2|.x4>{_LDSPACE}.b8x16<F:.b6x16_p32|.b4x16_p64> "
     f"{{d:b32*N}}, [A]{_MX8}")
_add(f"stmatrix.sync.aligned.m16n8<N:.x1|.x2|.x4>.trans{_LDSPACE}.b8 [A], {{a:b32*N}}{_MX8}")

# ----------------------------------------------------------------------------- mma.sync
# ptxas 13.0 reads the types (d, a, b, c) and the layouts (a, b) by position; .dtype must be
# .ctype for 16-bit and fp8 inputs; every shape but the f16 m8n8k4 takes `.row.col` only.
# Fragments per thread: (shape, a registers, b registers). Their registers, as ptxas 13.0
# takes them (sm_80/sm_90a/sm_100a, "Arguments mismatch for instruction 'mma'" otherwise): the
# ISA's packs, .f16x2 for .f16 inputs and accumulators, .bf16x2 and .tf32 for theirs (a bit
# register or one of the pack's own type: no .u32, .s32, .f32, nor .f16x2 for .bf16x2); the
# .s32 accumulators an integer or bit register (`!`: no .f32, no .f16x2); the .f32 ones a
# float or bit one; the integer, single-bit and fp8 inputs any 32-bit register; the .f64 ones
# any 64-bit register (a .u64 or .s64 one too, in d, a, b and c).
_MMA = "mma.sync.aligned"
_ACC4 = {"f32": "a:f32*4", "f16": "a:f16x2*2"}
_DACC4 = {"f32": "d:f32*4", "f16": "d:f16x2*2"}


def _mma(mnemonic: str, d: str, a: str, b: str, c: str, keys: str, extra: str = "") -> None:
    _add(f"{mnemonic} {{{d}}}, {{{a}}}, {{{b}}}, {{{c}}}{extra}; {keys}; positional")


_ACC8 = {"f32": "f32*8", "f16": "f16x2*4"}
for _dt, _ct in (("f16", "f16"), ("f32", "f16"), ("f32", "f32")):  # .f32 c needs .f32 d
    _mma(f"{_MMA}.m8n8k4<A:.row|.col><B:.row|.col>.{_dt}.f16.f16.{_ct}", f"d:{_ACC8[_dt]}",
         "a:f16x2*2", "a:f16x2*2", f"a:{_ACC8[_ct]}", "sm=70")
for _shape, _na, _nb, _sm in (("m16n8k8", 2, 1, 75), ("m16n8k16", 4, 2, 80)):
    for _dt in ("f16", "f32"):
        _mma(f"{_MMA}.{_shape}.row.col.{_dt}.f16.f16.{_dt}", _DACC4[_dt], f"a:f16x2*{_na}",
             f"a:f16x2*{_nb}", _ACC4[_dt], f"sm={_sm}")
    _mma(f"{_MMA}.{_shape}.row.col.f32.bf16.bf16.f32", "d:f32*4", f"a:bf16x2*{_na}",
         f"a:bf16x2*{_nb}", "a:f32*4", "sm=80")
for _shape, _na, _nb in (("m16n8k4", 2, 1), ("m16n8k8", 4, 2)):
    _mma(f"{_MMA}.{_shape}.row.col.f32.tf32.tf32.f32", "d:f32*4", f"a:tf32*{_na}",
         f"a:tf32*{_nb}", "a:f32*4", "sm=80")
# f64: m8n8k4 from sm_80, the m16n8 shapes from sm_90; `.rn` is the only (default) rounding
_mma(f"{_MMA}.m8n8k4.row.col{{.rn}}.f64.f64.f64.f64", "d:b64*2", "a:b64*1", "a:b64*1",
     "a:b64*2", "sm=80")
for _shape, _na, _nb in (("m16n8k4", 2, 1), ("m16n8k8", 4, 2), ("m16n8k16", 8, 4)):
    _mma(f"{_MMA}.{_shape}.row.col{{.rn}}.f64.f64.f64.f64", "d:b64*4", f"a:b64*{_na}",
         f"a:b64*{_nb}", "a:b64*4", "sm=90")
# integers: 8-bit and 4-bit, the m8n8 shapes from sm_75
for _types, _int_shapes in ((".s32<A:.u8|.s8><B:.u8|.s8>.s32",
                             (("m8n8k16", 1, 1, 75, 2), ("m16n8k16", 2, 1, 80, 4),
                              ("m16n8k32", 4, 2, 80, 4))),
                            (".s32<A:.u4|.s4><B:.u4|.s4>.s32",
                             (("m8n8k32", 1, 1, 75, 2), ("m16n8k32", 2, 1, 80, 4),
                              ("m16n8k64", 4, 2, 80, 4)))):
    for _shape, _na, _nb, _sm, _nc in _int_shapes:
        _mma(f"{_MMA}.{_shape}.row.col{{.satfinite}}{_types}", f"d:s32!*{_nc}",
             f"a:b32*{_na}", f"a:b32*{_nb}", f"a:s32!*{_nc}", f"sm={_sm}")
# single bit: .xor.popc from sm_75 (m8n8k128), .and.popc from sm_80
for _shape, _na, _nb, _sm, _nc in (("m8n8k128", 1, 1, 75, 2), ("m16n8k128", 2, 1, 80, 4),
                                   ("m16n8k256", 4, 2, 80, 4)):
    _mma(f"{_MMA}.{_shape}.row.col.s32.b1.b1.s32<O:.xor|.and@80>.popc", f"d:s32!*{_nc}",
         f"a:b32*{_na}", f"a:b32*{_nb}", f"a:s32!*{_nc}", f"sm={_sm}")
# fp8 (sm_89): both shapes, f32 or f16 accumulators
_FP8 = "<A:.e4m3|.e5m2><B:.e4m3|.e5m2>"
for _shape, _na, _nb in (("m16n8k16", 2, 1), ("m16n8k32", 4, 2)):
    for _dt in ("f16", "f32"):
        _mma(f"{_MMA}.{_shape}.row.col.{_dt}{_FP8}.{_dt}", _DACC4[_dt], f"a:b32*{_na}",
             f"a:b32*{_nb}", _ACC4[_dt], "sm=89")
# .kind::f8f6f4: with fp8 inputs on the sm_100 and sm_120 families' a/f targets (ptxas 13.0:
# not on plain sm_100/103/110/120/121 nor sm_90a, "Feature '.kind::f8f6f4' not supported"),
# with an fp6/fp4 input on the sm_120 family only
_F6F4 = ".e3m2|.e2m3|.e2m1"
for _a, _b, _target in (("<A:.e4m3|.e5m2>", "<B:.e4m3|.e5m2>", "100f,120f"),
                        (f"<A:{_F6F4}>", f"<B:.e4m3|.e5m2|{_F6F4}>", "120f"),
                        ("<A:.e4m3|.e5m2>", f"<B:{_F6F4}>", "120f")):
    for _dt in ("f16", "f32"):
        _mma(f"{_MMA}.m16n8k32.row.col.kind::f8f6f4.{_dt}{_a}{_b}.{_dt}", _DACC4[_dt],
             "a:b32*4", "a:b32*2", _ACC4[_dt], f"sm={_target}")

# ----------------------------------------------------------------------------- mma.sp (sparse A)
# (Their registers as the dense forms' but for the .bf16 and .tf32 inputs and the .f32
# accumulators, which take any 32-bit register here: ptxas 13.0 takes a .u32, .s32, .f32 or
# .f16x2 one, where the dense forms take none of the first two.)
_SP_ACC4 = {"f32": "a:b32*4", "f16": "a:f16x2*2"}
_SP_DACC4 = {"f32": "d:b32*4", "f16": "d:f16x2*2"}
# d, a, b, c, the metadata e and the sparsity selector f, an immediate whose range ptxas
# 13.0 ties to the shape ("expected to be in range [0..3]"): 0..3 for the smaller k of
# 16-bit/tf32 inputs, 0..1 for the larger k and the smaller integer k, 0 for the rest.
_SP = "mma<SP:.sp|.sp::ordered_metadata>.sync.aligned"
_SEL = {3: "i:0..3", 1: "i:0..1", 0: "i:0"}
for _shape, _sel, _n in (("m16n8k16", 3, 2), ("m16n8k32", 1, 4)):
    for _dt in ("f16", "f32"):
        # ptxas 13.0: f16 inputs into an f32 accumulator take 0..3 for k32 too
        _s = 3 if _dt == "f32" else _sel
        _mma(f"{_SP}.{_shape}.row.col.{_dt}.f16.f16.{_dt}", _SP_DACC4[_dt], f"a:f16x2*{_n}",
             f"a:f16x2*{_n}", _SP_ACC4[_dt], "sm=80", f", af:b32, {_SEL[_s]}")
    _mma(f"{_SP}.{_shape}.row.col.f32.bf16.bf16.f32", "d:b32*4", f"a:b32*{_n}",
         f"a:b32*{_n}", "a:b32*4", "sm=80", f", af:b32, {_SEL[_sel]}")
for _shape, _sel, _n in (("m16n8k8", 3, 2), ("m16n8k16", 1, 4)):
    _mma(f"{_SP}.{_shape}.row.col.f32.tf32.tf32.f32", "d:b32*4", f"a:b32*{_n}",
         f"a:b32*{_n}", "a:b32*4", "sm=80", f", af:b32, {_SEL[_sel]}")
_INT8 = ".s32<A:.u8|.s8><B:.u8|.s8>.s32"
_INT4 = ".s32<A:.u4|.s4><B:.u4|.s4>.s32"
for _types, _sp_shapes in ((_INT8, (("m16n8k32", 1, 2), ("m16n8k64", 0, 4))),
                           (_INT4, (("m16n8k64", 1, 2), ("m16n8k128", 0, 4)))):
    for _shape, _sel, _n in _sp_shapes:
        _mma(f"{_SP}.{_shape}.row.col{{.satfinite}}{_types}", "d:s32!*4", f"a:b32*{_n}",
             f"a:b32*{_n}", "a:s32!*4", "sm=80", f", af:b32, {_SEL[_sel]}")
# the fp8 metadata may be no float register below sm_120 (an .f32 one: "Arguments mismatch
# for instruction 'mov'", ptxas's own expansion; a .u32, .s32 or .f16x2 one assembles); sm_120
# takes any 32-bit register
for _meta, _target in (("r:b32!", "89"), ("af:b32", "120")):
    _mma(f"{_SP}.m16n8k64.row.col.f32{_FP8}.f32", "d:f32*4", "a:b32*4", "a:b32*4", "a:f32*4",
         f"sm={_target}", f", {_meta}, i:0")

# block scaling (sm_120 family): d, a, b, c, then scale-a-data, {byte-id-a, thread-id-a},
# scale-b-data, {byte-id-b, thread-id-b}; the sparse forms put e and f before the scales
_SCALES = ", af:b32, {a:b16*2}, af:b32, {a:b16*2}"
_F8F6F4 = ".e4m3|.e5m2|.e3m2|.e2m3|.e2m1"
for _sp, _k8, _k4, _na, _nb, _extra in (
        ("mma.sync.aligned", "m16n8k32", "m16n8k64", 4, 2, ""),
        ("mma.sp::ordered_metadata.sync.aligned", "m16n8k64", "m16n8k128", 4, 4,
         ", af:b32, i:0")):
    _mma(f"{_sp}.{_k8}.row.col.kind::mxf8f6f4.block_scale{{.scale_vec::1X}}.f32"
         f"<A:{_F8F6F4}><B:{_F8F6F4}>.f32.ue8m0", "d:f32*4", f"a:b32*{_na}", f"a:b32*{_nb}",
         "a:f32*4", "sm=120f", _extra + _SCALES)
    _mma(f"{_sp}.{_k4}.row.col.kind::mxf4.block_scale{{.scale_vec::2X}}.f32.e2m1.e2m1.f32.ue8m0",
         "d:f32*4", f"a:b32*{_na}", f"a:b32*{_nb}", "a:f32*4", "sm=120f", _extra + _SCALES)
    # ptxas 13.0: .scale_vec::2X with .ue8m0, 4X with .ue4m3 ("Illegal modifier
    # '.scale_vec::4X' ... with type '.ue8m0"); ptxas 13.1 also takes 4X with .ue8m0
    # (CUTLASS enables it from CUDA 13.1 on)
    for _vec, _stype, _newer in (("2X", "ue8m0", ""), ("4X", "ue4m3", ""),
                                 ("4X", "ue8m0", "; toolkit=13.1")):
        _mma(f"{_sp}.{_k4}.row.col.kind::mxf4nvf4.block_scale.scale_vec::{_vec}.f32"
             f".e2m1.e2m1.f32.{_stype}", "d:f32*4", f"a:b32*{_na}", f"a:b32*{_nb}", "a:f32*4",
             f"sm=120f{_newer}", _extra + _SCALES)
# sparse .kind::f8f6f4 (with .sp::ordered_metadata only: plain .sp is "Illegal modifier"),
# fp8 inputs from sm_100 as in the dense form; fp8 into f16 on the sm_120 family without .kind
# (on sm_100 fp8 into f32 only, with a metadata register of any 32-bit class but a float one,
# as the older fp8 form: ptxas 13.0 fails on a .f32 one in its own expansion, "Arguments
# mismatch for instruction 'mov'", and takes a .u32, .s32 or .f16x2 one)
_ORDERED = "mma.sp::ordered_metadata.sync.aligned.m16n8k64.row.col"
# (listed first: the first form whose operands fit decides the target)
_mma(f"{_ORDERED}.kind::f8f6f4.f32{_FP8}.f32", "d:f32*4", "a:b32*4", "a:b32*4", "a:f32*4",
     "sm=100f,120f", ", r:b32!, i:0")
for _a, _b, _target in (("<A:.e4m3|.e5m2>", "<B:.e4m3|.e5m2>", "120f"),
                        (f"<A:{_F6F4}>", f"<B:.e4m3|.e5m2|{_F6F4}>", "120f"),
                        ("<A:.e4m3|.e5m2>", f"<B:{_F6F4}>", "120f")):
    for _dt in ("f16", "f32"):
        _mma(f"{_ORDERED}.kind::f8f6f4.{_dt}{_a}{_b}.{_dt}", _DACC4[_dt], "a:b32*4", "a:b32*4",
             _ACC4[_dt], f"sm={_target}", ", af:b32, i:0")
# (ptxas 13.0: sm_120a/120f/121a only, "not supported on .target 'sm_120'")
_mma(f"{_ORDERED}.f16{_FP8}.f16", "d:f16x2*2", "a:b32*4", "a:b32*4", "a:f16x2*2", "sm=120f",
     ", af:b32, i:0")

PARTIAL.update({
    # kinds that are tcgen05's, not mma.sync's: not judged
    "mma": frozenset({"kind::f16", "kind::i8", "kind::tf32",
                      # ptxas 13.0 takes an extra .bf16 here, and an extra sub-byte type
                      # ('mma...m8n8k4.row.col.u4.f64.f64.f64.f64'; not .u8: "Unexpected
                      # instruction types"): undocumented, not judged
                      "f64+bf16", "f64+u4", "f64+s4", "f64+b1"}),
    "ldmatrix": frozenset(),
    "stmatrix": frozenset(),
})

# ----------------------------------------------------------------------------- tcgen05 (sm_100)
# ptxas 13.0: the sm_100 family (sm_100a/f, sm_103a, sm_110a; none on sm_120a). Tensor-memory
# addresses are 32-bit registers ("Arguments mismatch" with a 64-bit one); descriptors 64-bit;
# the instruction descriptor 32-bit; the sub-instruction word comes first. Measured: `.shift`
# is not on sm_100f, `.kind::i8` not on sm_100f/sm_103a (ptxas 13.5: nor on sm_107a,
# `@100a-103-107`) and the scale-input-d immediate not on sm_110a (`sm=100f-110`).
_TC = "; sm=100f; head=1"
_CG = "<CG:.cta_group::1|.cta_group::2>"
# Measured (an immediate for each register read, benchmark mutation register-as-immediate):
# alloc's column count is a power of 2 in [32..512]; dealloc's taddr may be a constant and its
# count any multiple of 32 (-32, 0, 544 and 1024 assemble, 1 is "expected to be multiple of 32");
# commit's multicast mask is a register only ("Arguments mismatch" for 0 or 3).
_add(f"tcgen05.alloc{_CG}.sync.aligned{{.shared::cta}}.b32 [A], ai:u32:32|64|128|256|512{_TC}")
_add(f"tcgen05.dealloc{_CG}.sync.aligned.b32 a:u32, ai:u32:..%32{_TC}")
# PTX ISA 9.4 (ptxas 13.4; CCCL tcgen05_alloc.h): an exclusive allocation, and its release
_add(f"tcgen05.alloc.exclusive{_CG}.sync.aligned{{.shared::cta}}.b32 [A], "
     f"ai:u32:32|64|128|256|512{_TC}; toolkit=13.4")
_add(f"tcgen05.dealloc.exclusive{_CG}.sync.aligned.b32 a:u32, ai:u32:..%32{_TC}; toolkit=13.4")
_add(f"tcgen05.relinquish_alloc_permit{_CG}.sync.aligned{_TC}")
_add(f"tcgen05.commit{_CG}.mbarrier::arrive::one{{.shared::cluster}}.b64 [A]{_TC}")
# (the CTA mask a 16-bit integer: ptxas 13.0 takes a .b16, .u16 or .s16 register, no .f16 one)
_add(f"tcgen05.commit{_CG}.mbarrier::arrive::one{{.shared::cluster}}.multicast::cluster.b64 "
     f"[A], r:u16{_TC}")
# PTX ISA 9.4 (ptxas 13.4; CCCL tcgen05_commit.h), sm_107 only ("Feature
# 'tcgen05.commit.multicast::cluster::32b' not supported" on sm_100a, sm_103a, sm_110a): the
# arrival on the barriers of the CTAs a 32-bit mask names (a register or an immediate: "must be
# 32-bit size" for a .b16), and a commit restricted to the MMAs' reads of their A operands
_TC107 = "; sm=107f; head=1; toolkit=13.4"
_READ_A = ".sync_restrict::shared::read::mma::a"
_add(f"tcgen05.commit{_CG}.mbarrier::arrive::one{{{_READ_A}}}{{.shared::cluster}}"
     f".multicast::cluster::32b.b64 [A], ai:u32{_TC107}")
_add(f"tcgen05.commit{_CG}.mbarrier::arrive::one{_READ_A}{{.shared::cluster}}.b64 [A]{_TC107}")
# (its 16-bit mask may be an immediate, ptxas 13.5, where the plain commit's may not)
_add(f"tcgen05.commit{_CG}.mbarrier::arrive::one{_READ_A}{{.shared::cluster}}"
     f".multicast::cluster.b64 [A], ai:u16{_TC107}")
_add("tcgen05.fence::before_thread_sync; sm=100f; head=1")
_add("tcgen05.fence::after_thread_sync; sm=100f; head=1")
_add("tcgen05.wait::ld.sync.aligned; sm=100f; head=1")
_add("tcgen05.wait::st.sync.aligned; sm=100f; head=1")
_add(f"tcgen05.shift{_CG}.down [A:b32]; sm=100a; head=1")


def _nums(limit: int) -> str:
    out, n = [], 1
    while n <= limit:
        out.append(f"x{n}")
        n *= 2
    return _dots(out)


# (shape, largest .num, registers per .num); 16x32bx2 takes the half-split offset immediate
for _shape, _limit, _per in (("32x32b", 128, 1), ("16x64b", 128, 1), ("16x128b", 64, 2),
                             ("16x256b", 32, 4), ("16x32bx2", 128, 1)):
    _count = "N" if _per == 1 else f"N*{_per}"
    _split = ", i:*" if _shape == "16x32bx2" else ""
    # ptxas takes these without `.aligned` too (undocumented)
    _add(f"tcgen05.ld.sync.aligned.{_shape}<N:{_nums(_limit)}>{{.pack::16b}}.b32 "
         f"{{d:b32*{_count}}}, [A:b32]{_split}{_TC}", _WG_NOALIGN)
    _add(f"tcgen05.st.sync.aligned.{_shape}<N:{_nums(_limit)}>{{.unpack::16b}}.b32 "
         f"[A:b32]{_split}, {{a:b32*{_count}}}{_TC}", _WG_NOALIGN)

# tcgen05.ld.red (PTX ISA 8.8): sm_103 and sm_110 families only; .x2 and up; .min/.max with
# .abs/.NaN for .f32; the reduced value lands in a 32-bit register (written: redval is a
# destination, as tests/test_effects.py expects)
_RED_TC = "; sm=103f,110f; head=2"
for _shape, _split in (("32x32b", ""), ("16x32bx2", ", i:*")):
    _num = "<N:" + _dots([f"x{2 ** i}" for i in range(1, 8)]) + ">"
    for _types in (".f32<O:.min|.max>{.abs}{.NaN}", "<T:.u32|.s32><O:.min|.max>"):
        _add(f"tcgen05.ld.red.sync.aligned.{_shape}{_num}{_types} {{d:b32*N}}, d:b32, "
             f"[A:b32]{_split}{_RED_TC}", _WG_NOALIGN)

# PTX ISA 9.4 (ptxas 13.4 and 13.5 on sm_107a only, not sm_107f: "Feature '.sp::2:4' not
# supported"; CCCL tcgen05_ld.h): the reduction over 2:4-sparse values that also loads them
# compressed: the .b2 metadata first (a .b32 per 32 columns, at least one), the kept half of
# the columns, then the reduced value; .x4 and up (".x2 not allowed"), .min/.max only,
# .aligned required, .f32.b2 only ("Unexpected instruction types")
for _columns in (4, 8, 16, 32, 64, 128):
    _add(f"tcgen05.ld.red.spcompress.sync.aligned.32x32b.x{_columns}<O:.min|.max>.sp::2:4"
         f"{{.abs}}{{.NaN}}.f32.b2 {{d:b32*{max(1, _columns // 32)}}}, "
         f"{{d:f32*{_columns // 2}}}, d:b32, [A:b32]; sm=107a; head=2; toolkit=13.4")

for _shape in (".128x256b", ".4x256b", ".128x128b",
               ".64x128b<W:.warpx2::02_13|.warpx2::01_23>", ".32x128b.warpx4"):
    # (the source descriptor may be a constant, as for tcgen05.mma)
    _add(f"tcgen05.cp{_CG}{_shape} [A:b32], ai:u64{_TC}")
    _add(f"tcgen05.cp{_CG}{_shape}.b8x16<F:.b6x16_p32|.b4x16_p64> [A:b32], ai:u64{_TC}")

# tcgen05.mma{.ws}{.sp}: [d], a-desc or [a], b-desc, {[sparse metadata]}, idesc, then
# {disable-output-lane} (4 or 8 lanes), enable-input-d (a predicate or any immediate) and but
# for .kind::f8f6f4 the scale-input-d immediate 0..15; block scaling takes [scale-a],
# [scale-b] before enable-input-d. `.ws` must follow `mma` (`mma.sp.ws`: "Unknown modifier
# '.ws'"); `.sp` may sit anywhere after it. Measured: explicit .scale_vec::NX is not on
# sm_100f ("Feature '.scale_vec::2X' not supported"), .kind::mxf4nvf4 needs one; the
# descriptors, idesc and .ws's zero-column-mask-desc may be immediates (tilelang writes
# `tcgen05.mma.ws... [%0], %1, %2, %3, p, 0`; ptxas 13.0 assembles constants there, not a
# .f32 literal, and the disable-output-lane vector takes registers only).
_KIND = "<K:.kind::f16|.kind::tf32|.kind::f8f6f4|.kind::i8@100a-103-107>"
_COLLECT_A = "{.collector::a::fill|.collector::a::use|.collector::a::lastuse|" \
             ".collector::a::discard}"
# PTX ISA 9.4 (ptxas 13.4 and 13.5, measured): the sm_107 family's tcgen05.mma (not .ws, whose
# B collectors are numbered) also keeps B in a collector, beside A's, with .ashift and .sp and
# in every kind ("Illegal modifier '.collector::b::fill'" on sm_100a/f, sm_103a, sm_110a)
_COLLECT_B = "{" + "|".join(f".collector::b::{op}@107f"
                            for op in ("fill", "use", "lastuse", "discard")) + "}"
_SCALED = (
    ("<K:.kind::mxf8f6f4>", "{.scale_vec::1X@100a|.block32}"),
    ("<K:.kind::mxf4>", "{.scale_vec::2X@100a|.block32}"),
    ("<K:.kind::mxf4nvf4>", "<V:.scale_vec::2X@100a|.scale_vec::4X@100a|.block16|.block32>"),
)
for _a in ("ai:u64", "[A:b32]"):
    for _sp, _meta in (("", ""), (".sp", "[A:b32], ")):
        _keys = "; sm=100f; head=1"
        for _cg, _lanes in ((".cta_group::1", 4), (".cta_group::2", 8)):
            # the scale-input-d immediate of .kind::f16/.tf32 (0..15) is not on sm_110a
            # ("Feature 'argument scale-inp-d-imm' not supported"); the dense .kind::i8 takes
            # a trailing immediate too, any integer (16, -1, 100000 assemble), on sm_110a as
            # well; the sparse one takes none
            # (.kind::i8 is not on sm_107, the B collector only there: the matcher takes no
            # word whose targets the form's other words do not meet, ``Need.meets``)
            _variants = [(_KIND, "", _keys),
                         ("<K:.kind::f16|.kind::tf32>", ", i:0..15",
                          _keys.replace("sm=100f", "sm=100f-110"))]
            if not _sp:
                _variants.append(("<K:.kind::i8@100a-103-107>", ", i:*", _keys))
            for _kind, _scale, _k in _variants:
                # .ashift (A from tensor memory only) excludes the collector
                _collect = (_COLLECT_A if _a == "ai:u64" else _COLLECT_A[:-1] + "|.ashift}"
                            ) + _COLLECT_B
                _head = (f"tcgen05.mma{_sp}{_cg}{_kind}{_collect} [A:b32], {_a}, ai:u64, "
                         f"{_meta}a:u32")
                _add(f"{_head}, a:pred{_scale}{_k}")
                _add(f"{_head}, {{r:b32*{_lanes}}}, a:pred{_scale}{_k}")
            for _kind, _vec in _SCALED:
                # sparse .kind::mxf4 and .kind::mxf4nvf4 are not on sm_100f
                _need = "; sm=100a" if _sp and "mxf4" in _kind else ""
                _add(f"tcgen05.mma{_sp}{_cg}{_kind}.block_scale{_vec}{_COLLECT_A}{_COLLECT_B} "
                     f"[A:b32], {_a}, ai:u64, {_meta}a:u32, [A:b32], [A:b32], a:pred{_keys}{_need}")
            if not _sp:
                # PTX ISA 9.4, sm_107 family (ptxas 13.4 and 13.5, measured; vLLM's Rubin MoE
                # GEMM): B decompressed through a lookup table in tensor memory, whose address
                # follows the B descriptor; .kind::f8f6f4 and .kind::mxf8f6f4 only ("cannot be
                # combined with modifier '.kind::f16'", '.kind::mxf4'), not with .sp or .ashift
                _lut = ".decompress::lut::b" + _COLLECT_A + _COLLECT_B
                _args = f"[A:b32], {_a}, ai:u64, [A:b32], a:u32"
                _add(f"tcgen05.mma{_cg}<K:.kind::f8f6f4>{_lut} {_args}, a:pred; sm=107f; head=1")
                _add(f"tcgen05.mma{_cg}<K:.kind::f8f6f4>{_lut} {_args}, {{r:b32*{_lanes}}}, "
                     f"a:pred; sm=107f; head=1")
                _add(f"tcgen05.mma{_cg}<K:.kind::mxf8f6f4>.block_scale"
                     f"{{.scale_vec::1X@107a|.block32}}{_lut} {_args}, [A:b32], [A:b32], a:pred; "
                     f"sm=107f; head=1")
        _collect_b = "{" + "|".join(f".collector::b{i}::{op}" for i in range(4)
                                    for op in ("fill", "use", "lastuse", "discard")) + "}"
        _add(f"tcgen05.mma.ws{_sp}.cta_group::1{_KIND}{_collect_b} [A:b32], {_a}, ai:u64, "
             f"{_meta}a:u32, a:pred, ?ai:u64; sm=100f; head=2")

# ----------------------------------------------------------------------------- wmma
# (ISA 9.7.14 wmma.load/store/mma.) The fragment lengths are ptxas 13.0's (each measured:
# "Argument vector size mismatch" otherwise): per shape, matrix and type, in 32-bit registers
# (packed halves and bytes), .f32 for f32 accumulators, .f64 for the double-precision ones.
# f16 from sm_70, s8/u8 sm_72, the sub-byte and single-bit shapes sm_75 (a row-major, b
# column-major only), bf16/tf32/f64 sm_80.
_WMMA_SS = "{.global|.shared|.shared::cta}"
_WMMA_SM = {"f16": 70, "s8": 72, "u8": 72, "bf16": 80, "tf32": 80, "f64": 80, "s4": 75, "u4": 75,
            "b1": 75, "f32": 70, "s32": 70}
# The fragments' registers, as ptxas 13.0 takes them ("Arguments mismatch" otherwise): the
# ISA's packs for .f16 (.f16x2), .bf16 and .tf32 (a bit register or one of the pack's type);
# an integer or bit register for .s8/.u8 and the .s32 accumulators (`!`: no .f32, no .f16x2);
# any 32-bit one for the sub-byte and single-bit inputs; .f64 a .b64 or .f64 one (a .u64 is
# "Type of argument does not match formal parameter")
_WMMA_REG = {"f32": "f32", "f64": "f64", "f16": "f16x2", "bf16": "bf16x2", "tf32": "tf32",
             "s8": "s32!", "u8": "s32!", "s32": "s32!"}  # else .b32
# (shape, {type: (a, b)}, {c type: count})
_WMMA_FRAGMENTS = (
    ("m16n16k16", {"f16": (8, 8), "s8": (2, 2), "u8": (2, 2), "bf16": (4, 4)},
     {"f16": 4, "f32": 8, "s32": 8}),
    ("m8n32k16", {"f16": (8, 8), "s8": (1, 4), "u8": (1, 4), "bf16": (2, 8)},
     {"f16": 4, "f32": 8, "s32": 8}),
    ("m32n8k16", {"f16": (8, 8), "s8": (4, 1), "u8": (4, 1), "bf16": (8, 2)},
     {"f16": 4, "f32": 8, "s32": 8}),
    ("m16n16k8", {"tf32": (4, 4)}, {"f32": 8}),
    ("m8n8k4", {"f64": (1, 1)}, {"f64": 2}),
    ("m8n8k32", {"s4": (1, 1), "u4": (1, 1)}, {"s32": 2}),
    ("m8n8k128", {"b1": (1, 1)}, {"s32": 2}),
)
_SUBBYTE = ("m8n8k32", "m8n8k128")


def _frag(kind: str, type_: str, count: int) -> str:
    return f"{{{kind}:{_WMMA_REG.get(type_, 'b32')}*{count}}}"


for _shape, _inputs, _accs in _WMMA_FRAGMENTS:
    _sub = _shape in _SUBBYTE
    for _t, (_na, _nb) in _inputs.items():
        for _m, _n, _lay in (("a", _na, ".row" if _sub else "<L:.row|.col>"),
                             ("b", _nb, ".col" if _sub else "<L:.row|.col>")):
            _add(f"wmma.load.{_m}.sync.aligned{_lay}.{_shape}{_WMMA_SS}.{_t} "
                 f"{_frag('d', _t, _n)}, [A], ?a:u32; sm={_WMMA_SM[_t]}; head=2")
    for _t, _n in _accs.items():
        # the accumulators of the f16 shapes from sm_70 (s32: sm_72), the others' with their
        # inputs
        _sm = _WMMA_SM[_t] if "f16" in _inputs else max(_WMMA_SM[t] for t in _inputs)
        _sm = 72 if _t == "s32" and "s8" in _inputs else _sm
        _add(f"wmma.load.c.sync.aligned<L:.row|.col>.{_shape}{_WMMA_SS}.{_t} "
             f"{_frag('d', _t, _n)}, [A], ?a:u32; sm={_sm}; head=2")
        _add(f"wmma.store.d.sync.aligned<L:.row|.col>.{_shape}{_WMMA_SS}.{_t} [A], "
             f"{_frag('a', _t, _n)}, ?a:u32; sm={_sm}; head=2")
        if _sub:  # ptxas 13.0 also takes .f32 for the sub-byte shapes' .s32 accumulator
            _add(f"wmma.load.c.sync.aligned<L:.row|.col>.{_shape}{_WMMA_SS}.f32 "
                 f"{_frag('d', 'f32', _n)}, [A], ?a:u32; sm={_sm}; head=2; undocumented")
            _add(f"wmma.store.d.sync.aligned<L:.row|.col>.{_shape}{_WMMA_SS}.f32 [A], "
                 f"{_frag('a', 'f32', _n)}, ?a:u32; sm={_sm}; head=2; undocumented")
    _layouts = ".row.col" if _sub else "<AL:.row|.col><BL:.row|.col>"
    _head = f"wmma.mma.sync.aligned{_layouts}.{_shape}"
    for _t, (_na, _nb) in _inputs.items():
        _ab = f"{_frag('a', _t, _na)}, {_frag('a', _t, _nb)}"
        _keys = f"sm={_WMMA_SM[_t]}; head=1; positional"
        if _t == "f16":
            for _dt in ("f16", "f32"):
                for _ct in ("f16", "f32"):
                    _add(f"{_head}.{_dt}.{_ct} {_frag('d', _dt, _accs[_dt])}, {_ab}, "
                         f"{_frag('a', _ct, _accs[_ct])}; {_keys}")
        elif _t in ("s8", "u8", "s4", "u4"):
            # a and b of one type ("Unexpected instruction types" for .s8.u8.s32)
            _acc = f"{_frag('d', 's32', _accs['s32'])}, {_ab}, {_frag('a', 's32', _accs['s32'])}"
            _add(f"{_head}.s32.{_t}.{_t}.s32{{.satfinite}} {_acc}; {_keys}")
        elif _t == "b1":
            for _op, _osm in ((".xor.popc", 75), (".and.popc", 80)):
                _add(f"wmma.mma{_op}.sync.aligned.row.col.{_shape}.s32.b1.b1.s32 "
                     f"{_frag('d', 's32', 2)}, {_ab}, {_frag('a', 's32', 2)}; sm={_osm}; "
                     "positional")
        elif _t == "f64":
            # (wmma.mma's c and d take any 64-bit register, a .u64 one too, where its a and b
            # and wmma.load's fragments do not)
            _add(f"{_head}{{.rn|.rz|.rm|.rp}}.f64.f64.f64.f64 {{d:b64*2}}, {_ab}, "
                 f"{{a:b64*2}}; {_keys}")
        else:  # bf16, tf32 into f32
            _add(f"{_head}.f32.{_t}.{_t}.f32 {_frag('d', 'f32', 8)}, {_ab}, "
                 f"{_frag('a', 'f32', 8)}; {_keys}")

# ptxas 13.0 reads a .u32 accumulator type on wmma.mma by rules of its own (m16n16k16 and
# m32n8k16 take .s32.s8.u8.u32, m8n32k16 none, the tf32 shape some), sub-byte types with
# another shape (m8n32k16 .u4 assembles for sm_75/sm_80), and .tf32 beside the sub-byte
# shapes' accumulator type: not judged
PARTIAL["wmma"] = frozenset({"mma+u32"} | {
    f"mma+{t}+{shape}" for t in ("s4", "u4", "b1")
    for shape in ("m16n16k16", "m8n32k16", "m32n8k16", "m16n16k8", "m8n8k4")} | {
    # and an extra .tf32 on the sub-byte shapes' c and d ('wmma.store.d...m8n8k128.tf32.f32';
    # not on the others': "Unexpected instruction types")
    f"{shape}+tf32" for shape in _SUBBYTE})

_TC_OPS = ("alloc", "dealloc", "relinquish_alloc_permit", "commit", "fence::before_thread_sync",
           "fence::after_thread_sync", "wait::ld", "wait::st", "shift", "ld", "st", "mma")
PARTIAL.update({
    "tcgen05": frozenset(set()
                         # ptxas 13.0 takes (ignores?) the cp source formats on every other
                         # sub-instruction: undocumented, not judged
                         | {f"{op}+{fmt}" for op in _TC_OPS
                            for fmt in ("b8x16", "b6x16_p32", "b4x16_p64")}
                         # ptxas 13.0 and 13.5 take tcgen05.ld.red's .b2 on the others too
                         # (tcgen05.mma of every kind, commit, cp, even fence, twice): not
                         # judged, tcgen05.ld's own still is
                         | {f"{op}+b2" for op in (*_TC_OPS, "cp") if op != "ld"}),
})
