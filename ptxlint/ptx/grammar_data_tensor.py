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
    meta = "r:b32, " if sparse else ""
    _add(f"{mnemonic} {_WG_ACC[acc]}, r:b64, r:b64, {meta}{tail_desc}{keys}", _WG_NOALIGN)
    _add(f"{mnemonic} {_WG_ACC[acc]}, {_WG_A_REG}, r:b64, {meta}{tail_reg}{keys}", _WG_NOALIGN)


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

PARTIAL: dict[str, frozenset[str]] = {}
