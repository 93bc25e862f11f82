"""Raw data of the PTX ISA (up to 9.x): modifier vocabularies, minimum targets, deprecations.

Data only; :mod:`ptxlint.ptx.instructions` turns it into lookups. Sources: the PTX ISA manual
(chapter 9, per-instruction "PTX ISA Notes" / "Target ISA Notes"), CCCL's generated wrappers
(``cuda/__ptx/instructions/generated/*.h``: ``// PTX ISA NN, SM_NN`` comments) and ptxas 13.0
itself (``Unknown modifier`` / ``Not a name of any known instruction`` /
``Feature ... requires .target sm_NN``).

Vocabularies are deliberately a little generous (a modifier is accepted anywhere in its
family): the table exists to catch spellings the ISA does not have, and must never reject a
real form. Versions are written as integers: PTX ISA 8.6 is ``86``, sm_90 is ``90``.
"""

from __future__ import annotations

# ----------------------------------------------------------------------------- shared groups
# Space-separated words; a group name in the family table expands to these.
GROUPS: dict[str, str] = {
    "int": "u8 u16 u32 u64 s8 s16 s32 s64",
    "bits": "b8 b16 b32 b64 b128 pred",
    "flt": "f16 f16x2 bf16 bf16x2 f32 f32x2 f64 tf32",
    "fp8": (
        "e4m3 e5m2 e2m1 e2m3 e3m2 ue8m0 ue4m3 e4m3x2 e5m2x2 e2m1x2 e2m3x2 e3m2x2 ue8m0x2 "
        "e4m3x4 e5m2x4 e2m1x4 e2m3x4 e3m2x4 ue5m3x2 s2f6x2 b4x16 b4x16_p64 b6x16_p32 b8x16 b6p2x16"
    ),
    "simd": "s16x2 u16x2 s8x4 u8x4",
    "rnd": "rn rz rm rp rna rs rni rzi rmi rpi",
    "fmod": "ftz sat satfinite approx full relu NaN xorsign abs oob",
    "scope": "cta cluster gpu sys",
    "sem": "relaxed acquire release acq_rel sc weak volatile mmio",
    "space": (
        "global shared shared::cta shared::cluster local param param::entry param::func const "
        "tex generic"
    ),
    "cache": (
        "ca cg cs lu cv wb wt nc L1::evict_normal L1::evict_unchanged L1::evict_first "
        "L1::evict_last L1::no_allocate L2::evict_normal L2::evict_first L2::evict_last "
        "L2::evict_unchanged L2::cache_hint L2::64B L2::128B L2::256B unified"
    ),
    "vec": "v2 v4 v8",
    "cmp": "eq ne lt le gt ge lo ls hi hs equ neu ltu leu gtu geu num nan",
    "bool": "and or xor",
    "mbar": (
        "mbarrier::complete_tx::bytes mbarrier::complete_tx mbarrier::arrive::one "
        "mbarrier::expect_tx"
    ),
    "mcast": "multicast::cluster multicast::cluster::all",
    "dims": "1d 2d 3d 4d 5d",
    "tensor_mode": (
        "tile im2col im2col::w im2col::w::128 im2col_no_offs tile::gather4 tile::scatter4 "
        "tile::gather4::im2col"
    ),
    "atomop": "and or xor cas exch add inc dec min max",
    "cta_group": "cta_group::1 cta_group::2",
}

# Matrix shapes, per family. wgmma: m64nNkK with N a multiple of 8 up to 256 (dense and sparse
# K values); mma/wmma: the shapes of the ISA's matrix-fragment tables.
GROUPS["wgmma_shapes"] = " ".join(
    f"m64n{n}k{k}" for n in range(8, 257, 8) for k in (8, 16, 32, 64, 128, 256)
)
GROUPS["mma_shapes"] = (
    "m8n8k4 m8n8k16 m8n8k32 m8n8k128 m16n8k4 m16n8k8 m16n8k16 m16n8k32 m16n8k64 m16n8k128 "
    "m16n8k256 m16n16k16 m32n8k16 m8n32k16 m16n16k8 m16n16k4"
)
GROUPS["matrix_shapes"] = "m8n8 m16n16 m8n16 m16n8 x1 x2 x4 x16"
GROUPS["tcgen05_shapes"] = (
    "32x32b 16x64b 16x128b 16x256b 16x32bx2 128x256b 4x256b 128x128b 64x128b 32x128b "
    + " ".join(f"x{n}" for n in (1, 2, 4, 8, 16, 32, 64, 128))
)

# ----------------------------------------------------------------------------- families
# opcode -> space-separated vocabulary (group names in braces, e.g. "{int}").
FAMILIES: dict[str, str] = {
    # integer arithmetic
    "add": "{int} {flt} {simd} cc sat {rnd} ftz relu",
    "sub": "{int} {flt} {simd} cc sat {rnd} ftz relu",
    "addc": "cc u32 s32 u64 s64",
    "subc": "cc u32 s32 u64 s64",
    "mul": "{int} {flt} hi lo wide {rnd} ftz sat",
    "mad": "{int} {flt} hi lo wide cc sat {rnd} ftz",
    "madc": "hi lo cc u32 s32 u64 s64",
    "mul24": "hi lo u32 s32",
    "mad24": "hi lo sat u32 s32",
    "sad": "{int}",
    "div": "{int} {flt} approx full {rnd} ftz",
    "rem": "{int}",
    "abs": "{int} {flt} ftz relu",
    "neg": "{int} {flt} ftz relu",
    "min": "{int} {flt} {simd} ftz relu NaN xorsign abs",
    "max": "{int} {flt} {simd} ftz relu NaN xorsign abs",
    "popc": "b32 b64",
    "clz": "b32 b64",
    "bfind": "u32 u64 s32 s64 shiftamt",
    "fns": "b32",
    "brev": "b32 b64",
    "bfe": "u32 u64 s32 s64",
    "bfi": "b32 b64",
    "szext": "clamp wrap u32 s32",
    "bmsk": "clamp wrap b32",
    "dp4a": "u32 s32",
    "dp2a": "lo hi u32 s32",
    # floating point
    "testp": "finite infinite number notanumber normal subnormal f32 f64",
    "copysign": "f32 f64",
    "fma": "{flt} {rnd} ftz sat relu oob",
    "rcp": "{flt} approx {rnd} ftz",
    "sqrt": "{flt} approx {rnd} ftz",
    "rsqrt": "{flt} approx ftz",
    "sin": "approx ftz f32 2pi",
    "cos": "approx ftz f32 2pi",
    "lg2": "approx ftz f32",
    "ex2": "approx ftz f32 f16 f16x2 bf16 bf16x2 atype",
    "tanh": "approx f32 f16 f16x2 bf16 bf16x2",
    # comparison and selection
    "set": "{cmp} {bool} ftz {int} {bits} {flt}",
    "setp": "{cmp} {bool} ftz {int} {bits} {flt}",
    "selp": "{int} {bits} {flt}",
    "slct": "ftz {int} {bits} f32 f64",
    # logic and shift
    "and": "pred b16 b32 b64",
    "or": "pred b16 b32 b64",
    "xor": "pred b16 b32 b64",
    "not": "pred b16 b32 b64",
    "cnot": "b16 b32 b64",
    "lop3": "b32 and or",
    "shf": "l r clamp wrap b32",
    "shl": "b16 b32 b64",
    "shr": "b16 b32 b64 u16 u32 u64 s16 s32 s64",
    # data movement
    "mov": "{int} {bits} {flt} {vec}",
    "shfl": "sync up down bfly idx b32",
    "prmt": "b32 f4e b4e rc8 ecl ecr rc16",
    "ld": "{space} {sem} {scope} {cache} {vec} {int} {bits} {flt} {fp8} relaxed ss",
    "ldu": "global {vec} {int} {bits} {flt}",
    "st": "{space} {sem} {scope} {cache} {vec} {int} {bits} {flt} {fp8} async bulk {mbar} ss",
    "prefetch": (
        "global local L1 L2 L2::evict_last L2::evict_normal tensormap const param L1::32B "
        "valid_addr"
    ),
    "prefetchu": "L1",
    "isspacep": "{space}",
    "cvta": "to {space} u32 u64",
    "cvt": (
        "{int} {bits} {flt} {fp8} {rnd} ftz sat satfinite relu pack s4 u4 s2 u2 "
        "scaled::n2::ue8m0"
    ),
    "mapa": "shared::cluster u32 u64",
    "getctarank": "shared::cluster u32 u64",
    "createpolicy": (
        "fractional range L2::evict_last L2::evict_normal L2::evict_first L2::evict_unchanged "
        "global b64 cvt L2"
    ),
    "discard": "global L2 L2::128B",
    "applypriority": "global L2::evict_normal L2 async bulk bulk_group",
    "alloca": "u32 u64 local",
    "stacksave": "u32 u64",
    "stackrestore": "u32 u64",
    "cp": (
        "async bulk tensor reduce prefetch commit_group wait_group wait_all bulk_group "
        "ca cg shared shared::cta shared::cluster global L2 L2::64B L2::128B L2::256B "
        "L2::cache_hint {mbar} {mcast} {dims} {tensor_mode} {cta_group} cp_mask read "
        "{atomop} noftz {int} {flt} b32 b64 mbarrier arrive noinc ignore_oob "
        "mbarrier::complete_tx::bytes shared::cta global sync_restrict::proxy::async "
        "multicast::cluster::32b mbarrier::report::disabled L2::evict_last "
        "mbarrier::report::validity::per_16bytes::8 mbarrier::report::validity::per_16bytes::80 "
        "mbarrier::report::validity::per_16bytes::8000 "
        "mbarrier::report::validity::per_16bytes::80000000 "
        "mbarrier::report::validity::per_element::ff override::global_address "
        "override::global_dim override::global_dim_stride"
    ),
    "multimem": (
        "ld_reduce st red cp reduce async bulk {sem} {scope} global shared::cta shared::cluster "
        "{atomop} {vec} {int} {bits} {flt} {fp8} acc::f32 acc::f16 weak bulk_group"
    ),
    "tensormap": (
        "replace cp_fenceproxy tile global_address rank box_dim global_dim global_stride "
        "element_stride elemtype interleave_layout swizzle_mode swizzle_atomicity fill_mode "
        "shared::cta global tensormap::generic release acquire sync aligned {scope} "
        "b1024 b32 b64 b128"
    ),
    # texture and surface
    "tex": "1d 2d 3d a1d a2d cube acube 2dms a2dms base level grad v4 v2 {int} {flt} b32",
    "tld4": "r g b a 2d a2d cube acube v4 {int} f32",
    "txq": "width height depth channel_data_type channel_order normalized_coords "
    "filter_mode addr_mode_0 addr_mode_1 addr_mode_2 samples array_size num_mipmap_levels "
    "num_samples force_unnormalized_coords level b32",
    "istypep": "texref samplerref surfref",
    "suld": "b 1d 2d 3d a1d a2d {vec} {bits} trap clamp zero {cache}",
    "sust": "b p 1d 2d 3d a1d a2d {vec} {bits} {int} f32 trap clamp zero {cache}",
    "sured": "b p add min max and or 1d 2d 3d u32 u64 s32 b32 b64 trap clamp zero",
    "suq": "width height depth channel_data_type channel_order array_size memory_layout b32",
    # control flow
    "bra": "uni",
    "brx": "idx uni",
    "call": "uni",
    "ret": "uni",
    "exit": "",
    # synchronization and communication
    "bar": "sync arrive red popc and or u32 pred cta aligned warp",
    "barrier": (
        "sync arrive wait red popc and or u32 pred aligned cta cluster relaxed release acquire"
    ),
    "membar": "cta gl sys proxy alias",
    "fence": (
        "sc acq_rel acquire release {scope} proxy alias async async::global async::shared::cta "
        "async::shared::cluster async::generic tensormap::generic generic::tensormap "
        "mbarrier_init sync_restrict::shared::cluster sync_restrict::shared::cta "
        "global shared::cta shared::cluster op_restrict fabric::fabric fabric::generic "
        "generic::fabric sync_restrict::read sync_restrict::shared::cluster::read"
    ),
    "fabric": (
        "submit wait op_restrict::fetching commit_group sync_restrict::reads "
        "sync_restrict::read try_put try_get try_red try_pullred try_atom async multimem "
        "shared::cta mbarrier::complete_tx::16B mbarrier::complete_tx::bytes "
        "mbarrier::report::fabric cp_mask counted::bytes L2::cache_hint relaxed sys "
        "{atomop} u32 u64 s32 s64 f16 bf16 f32 f64 f16x2 bf16x2 b32 b64 b128 acc::f32 sync "
        "tensor {dims} tile override::global_address override::global_dim "
        "override::global_dim_stride"
    ),
    "atom": (
        "{space} {sem} {scope} {atomop} {int} {bits} {flt} {vec} noftz L2::cache_hint "
        "exch cas"
    ),
    "red": (
        "{space} {sem} {scope} {atomop} {int} {bits} {flt} {vec} noftz L2::cache_hint async "
        "{mbar}"
    ),
    "vote": "all any uni ballot sync pred b32",
    "match": "any all sync b32 b64",
    "activemask": "b32",
    "redux": "sync {atomop} u32 s32 b32 f32 abs NaN",
    "griddepcontrol": "launch_dependents wait",
    "elect": "sync one",
    "mbarrier": (
        "init inval expect_tx complete_tx arrive arrive_drop test_wait try_wait pending_count "
        "parity noComplete shared shared::cta shared::cluster b64 {sem} {scope} {mbar} "
        "expect_tx check_layout layout::v0 layout::v1 phase_type::primary "
        "phase_type::conditional multicast::cluster::32b"
    ),
    "nanosleep": "u32",
    "trap": "",
    "brkpt": "",
    "pmevent": "mask",
    "clusterlaunchcontrol": (
        "try_cancel async query_cancel is_canceled get_first_ctaid get_first_ctaid::x "
        "get_first_ctaid::y get_first_ctaid::z shared::cta shared::cluster {mbar} {mcast} "
        "b128 b32 pred v4"
    ),
    "setmaxnreg": "inc dec sync aligned u32",
    # matrix instructions
    "wmma": (
        "load store mma sync aligned a b c d row col {int} {flt} {fp8} b1 s4 u4 xor popc and "
        "{mma_shapes} "
        "satfinite {space} stride {rnd}"
    ),
    "mma": (
        "sync aligned sp sp::ordered_metadata row col {int} {flt} {fp8} b1 s4 u4 satfinite "
        "{mma_shapes} "
        "xor popc and kind::f8f6f4 kind::mxf4 kind::mxf4nvf4 kind::mxf8f6f4 kind::f16 "
        "kind::i8 kind::tf32 block_scale scale_vec::1X scale_vec::2X scale_vec::4X {rnd}"
    ),
    "ldmatrix": "sync aligned trans shared shared::cta b16 b8 {fp8} {matrix_shapes}",
    "stmatrix": "sync aligned trans shared shared::cta b16 b8 {matrix_shapes}",
    "movmatrix": "sync aligned trans b16 m8n8",
    "wgmma": (
        "fence commit_group wait_group mma_async sp sync aligned {int} {flt} {fp8} b1 and "
        "{wgmma_shapes} "
        "satfinite"
    ),
    "tcgen05": (
        "alloc dealloc relinquish_alloc_permit ld st wait cp shift mma commit fence sp ws "
        "exclusive red min max abs NaN sync aligned {cta_group} shared::cta shared::cluster "
        "{mcast} multicast::cluster::32b sync_restrict::shared::read::mma::a spcompress "
        "sp::2:4 b2 "
        "mbarrier::arrive::one b32 b64 u32 s32 f32 {fp8} pack::16b unpack::16b "
        "fence::before_thread_sync fence::after_thread_sync wait::ld wait::st down "
        "kind::f16 kind::tf32 kind::f8f6f4 kind::i8 kind::mxf8f6f4 kind::mxf4 kind::mxf4nvf4 "
        "block_scale block16 block32 scale_vec::1X scale_vec::2X scale_vec::4X "
        "collector::a::fill collector::a::use collector::a::lastuse collector::a::discard "
        "collector::b0::fill collector::b0::use collector::b0::lastuse collector::b0::discard "
        "collector::b1::fill collector::b1::use collector::b1::lastuse collector::b1::discard "
        "collector::b2::fill collector::b2::use collector::b2::lastuse collector::b2::discard "
        "collector::b3::fill collector::b3::use collector::b3::lastuse collector::b3::discard "
        "warpx2::02_13 warpx2::01_23 warpx4 ashift {tcgen05_shapes}"
    ),
    # video instructions (scalar and SIMD)
    "vadd": "u32 s32 sat add min max b0 b1 b2 b3 h0 h1",
    "vsub": "u32 s32 sat add min max b0 b1 b2 b3 h0 h1",
    "vabsdiff": "u32 s32 sat add min max b0 b1 b2 b3 h0 h1",
    "vmin": "u32 s32 sat add min max b0 b1 b2 b3 h0 h1",
    "vmax": "u32 s32 sat add min max b0 b1 b2 b3 h0 h1",
    "vshl": "u32 s32 sat clamp wrap add min max b0 b1 b2 b3 h0 h1",
    "vshr": "u32 s32 sat clamp wrap add min max b0 b1 b2 b3 h0 h1",
    "vmad": "u32 s32 sat shr7 shr15 po b0 b1 b2 b3 h0 h1",
    "vset": "u32 s32 {cmp} add min max b0 b1 b2 b3 h0 h1",
}
for _v in ("vadd2", "vsub2", "vavrg2", "vabsdiff2", "vmin2", "vmax2", "vset2"):
    FAMILIES[_v] = "u32 s32 sat add {cmp}"
for _v in ("vadd4", "vsub4", "vavrg4", "vabsdiff4", "vmin4", "vmax4", "vset4"):
    FAMILIES[_v] = "u32 s32 sat add {cmp}"
del _v

# ----------------------------------------------------------------------------- requirements
# (opcode, modifiers that must all be present, min sm, min PTX ISA, arch suffix or "").
# The requirement of an instruction is the strongest entry that matches it. Entries give
# *lower bounds* from the ISA's Target ISA Notes: a missing entry costs recall, never precision.
REQUIREMENTS: tuple[tuple[str, tuple[str, ...], int, int, str], ...] = (
    # integer / float arithmetic
    ("add", ("f16",), 53, 42, ""),
    ("add", ("f16x2",), 53, 42, ""),
    ("add", ("bf16",), 90, 78, ""),
    ("add", ("bf16x2",), 90, 78, ""),
    ("add", ("f32x2",), 100, 86, ""),
    ("sub", ("f32x2",), 100, 86, ""),
    ("mul", ("f32x2",), 100, 86, ""),
    ("fma", ("f32x2",), 100, 86, ""),
    ("add", ("s16x2",), 90, 80, ""),
    ("sub", ("bf16",), 90, 78, ""),
    ("sub", ("bf16x2",), 90, 78, ""),
    ("mul", ("bf16",), 90, 78, ""),
    ("mul", ("bf16x2",), 90, 78, ""),
    ("abs", ("f16",), 53, 65, ""),
    ("abs", ("f16x2",), 53, 65, ""),
    ("abs", ("bf16",), 80, 70, ""),
    ("abs", ("bf16x2",), 80, 70, ""),
    ("neg", ("bf16",), 80, 70, ""),
    ("neg", ("bf16x2",), 80, 70, ""),
    ("fma", ("oob",), 90, 81, ""),
    ("add", ("u16x2",), 90, 80, ""),
    ("fma", ("f16",), 53, 42, ""),
    ("fma", ("f16x2",), 53, 42, ""),
    ("fma", ("bf16",), 80, 70, ""),
    ("fma", ("bf16x2",), 80, 70, ""),
    ("fma", ("relu",), 80, 70, ""),
    ("min", ("bf16",), 80, 70, ""),
    ("min", ("bf16x2",), 80, 70, ""),
    ("max", ("bf16",), 80, 70, ""),
    ("max", ("bf16x2",), 80, 70, ""),
    ("min", ("NaN",), 80, 70, ""),
    ("max", ("NaN",), 80, 70, ""),
    ("min", ("xorsign",), 86, 72, ""),
    ("max", ("xorsign",), 86, 72, ""),
    ("min", ("f16",), 80, 70, ""),
    ("max", ("f16",), 80, 70, ""),
    ("min", ("f16x2",), 80, 70, ""),
    ("max", ("f16x2",), 80, 70, ""),
    ("min", ("s16x2",), 90, 80, ""),
    ("max", ("s16x2",), 90, 80, ""),
    ("min", ("u16x2",), 90, 80, ""),
    ("max", ("u16x2",), 90, 80, ""),
    ("min", ("relu", "s32"), 90, 80, ""),
    ("max", ("relu", "s32"), 90, 80, ""),
    ("tanh", (), 75, 70, ""),
    ("tanh", ("bf16",), 90, 78, ""),
    ("tanh", ("bf16x2",), 90, 78, ""),
    ("ex2", ("f16",), 75, 70, ""),
    ("ex2", ("f16x2",), 75, 70, ""),
    ("ex2", ("bf16",), 90, 78, ""),
    ("ex2", ("bf16x2",), 90, 78, ""),
    ("dp4a", (), 61, 50, ""),
    ("dp2a", (), 61, 50, ""),
    ("bmsk", (), 70, 76, ""),
    ("szext", (), 70, 76, ""),
    ("fns", (), 30, 60, ""),
    ("copysign", (), 20, 41, ""),
    ("lop3", (), 50, 43, ""),
    ("lop3", ("or",), 50, 82, ""),  # the predicate-producing form, lop3.or/.and
    ("lop3", ("and",), 50, 82, ""),
    ("shf", (), 32, 31, ""),
    # comparisons: .bf16 from PTX ISA 7.8; an .f16 comparison with an integer result from 6.5
    ("set", ("bf16",), 90, 78, ""),
    ("set", ("bf16x2",), 90, 78, ""),
    ("setp", ("bf16",), 90, 78, ""),
    ("setp", ("bf16x2",), 90, 78, ""),
    *(("set", (d, a), 53, 65, "") for d in ("u16", "s16", "u32", "s32") for a in ("f16", "f16x2")),
    # conversions
    ("cvt", ("bf16",), 80, 70, ""),
    ("cvt", ("bf16x2",), 80, 70, ""),
    ("cvt", ("tf32",), 80, 70, ""),
    ("cvt", ("e4m3x2",), 89, 78, ""),
    ("cvt", ("e5m2x2",), 89, 78, ""),
    ("cvt", ("e2m1x2",), 100, 86, "a"),
    ("cvt", ("e2m3x2",), 100, 86, "a"),
    ("cvt", ("e3m2x2",), 100, 86, "a"),
    ("cvt", ("ue8m0x2",), 100, 86, "a"),
    ("cvt", ("f16x2",), 80, 70, ""),
    ("cvt", ("pack",), 72, 65, ""),
    ("cvt", ("relu",), 80, 70, ""),
    ("cvt", ("rs",), 100, 87, ""),
    # .satfinite on a narrowing to .f16/.bf16 (and .tf32 .rna) is PTX ISA 8.1
    ("cvt", ("satfinite", "f16", "f32"), 80, 81, ""),
    ("cvt", ("satfinite", "bf16", "f32"), 80, 81, ""),
    ("cvt", ("satfinite", "f16x2", "f32"), 80, 81, ""),
    ("cvt", ("satfinite", "bf16x2", "f32"), 80, 81, ""),
    ("cvt", ("satfinite", "tf32"), 80, 81, ""),
    # data movement and memory
    ("ld", ("relaxed",), 70, 60, ""),
    ("ld", ("acquire",), 70, 60, ""),
    ("st", ("relaxed",), 70, 60, ""),
    ("st", ("release",), 70, 60, ""),
    ("ld", ("L2::cache_hint",), 80, 74, ""),
    ("st", ("L2::cache_hint",), 80, 74, ""),
    ("ld", ("L2::256B",), 80, 74, ""),
    ("ld", ("v8",), 100, 88, ""),  # ptxas 13.0 asks no version of .v8.b16; 12.4 rejects it
    ("st", ("v8",), 100, 88, ""),
    # 256-bit accesses: .v4 of 64-bit values (.v8 of 32-bit ones is .v8's entry)
    *((op, ("v4", t), 100, 88, "") for op in ("ld", "st") for t in ("b64", "u64", "s64", "f64")),
    ("ld", ("b128",), 70, 83, ""),
    ("st", ("b128",), 70, 83, ""),
    ("mov", ("b128",), 70, 83, ""),
    ("ld", ("b128", "sys"), 70, 84, ""),
    ("st", ("b128", "sys"), 70, 84, ""),
    ("ld", ("cluster",), 90, 78, ""),
    ("st", ("cluster",), 90, 78, ""),
    ("ld", ("param::entry",), 20, 83, ""),
    ("ld", ("param::func",), 20, 83, ""),
    # the explicit .shared::cta window (ptxas 13.0: "Feature '::cta' requires PTX ISA .version
    # 7.8"; cp.async takes it from 7.0)
    *((op, ("shared::cta",), 20, 78, "") for op in ("ld", "st", "atom", "red", "cvta",
                                                     "ldmatrix", "wmma", "mbarrier")),
    ("ld", ("mmio",), 70, 82, ""),
    ("st", ("mmio",), 70, 82, ""),
    ("st", ("async",), 90, 81, ""),
    ("st", ("bulk",), 100, 86, ""),
    # st.async/red.async to .global, with .release or .mmio: PTX ISA 8.7
    *((op, ("async", w), 90, 87, "") for op in ("st", "red") for w in ("global", "release",
                                                                        "mmio")),
    ("ldu", (), 20, 20, ""),
    ("mapa", (), 90, 78, ""),
    ("getctarank", (), 90, 78, ""),
    ("createpolicy", (), 80, 74, ""),
    ("discard", (), 80, 74, ""),
    ("applypriority", (), 80, 74, ""),
    ("alloca", (), 52, 73, ""),
    ("stacksave", (), 52, 73, ""),
    ("stackrestore", (), 52, 73, ""),
    ("cp", ("async",), 80, 70, ""),
    ("cp", ("async", "bulk"), 90, 80, ""),
    ("cp", ("reduce", "async", "bulk"), 90, 80, ""),
    ("cp", ("async", "bulk", "prefetch"), 90, 80, ""),
    ("cp", ("async", "mbarrier", "arrive"), 80, 70, ""),
    ("cp", ("async", "mbarrier", "arrive", "shared::cta"), 80, 78, ""),
    # the Blackwell tensor copies' modes and masked bulk copies
    *(("cp", ("async", "bulk", "tensor", mode), 90, 86, "")
      for mode in ("im2col::w", "im2col::w::128", "tile::gather4", "tile::scatter4")),
    ("cp", ("async", "bulk", "cp_mask"), 90, 86, ""),
    ("multimem", (), 90, 81, ""),
    ("multimem", ("acc::f32",), 90, 82, ""),
    ("multimem", ("ld_reduce", "acc::f16"), 100, 86, ""),
    *(("multimem", (t,), 100, 86, "") for t in ("e4m3", "e5m2", "e4m3x2", "e5m2x2", "e4m3x4",
                                                 "e5m2x4")),
    ("tensormap", ("replace",), 90, 83, "a"),
    ("tensormap", ("replace", "swizzle_atomicity"), 90, 86, "a"),
    ("tensormap", ("cp_fenceproxy",), 90, 83, ""),
    ("prefetch", ("tensormap",), 90, 80, ""),
    ("prefetch", ("L2::evict_last",), 80, 74, ""),
    ("prefetch", ("L2::evict_normal",), 80, 74, ""),
    ("isspacep", ("shared::cluster",), 90, 78, ""),
    ("isspacep", ("shared::cta",), 20, 78, ""),
    *((op, ("param",), 20, 77, "") for op in ("cvta", "isspacep")),
    *((op, ("param::entry",), 20, 83, "") for op in ("cvta", "isspacep")),
    ("ldmatrix", (), 75, 65, ""),
    ("ldmatrix", ("b8",), 100, 86, "a"),
    ("ldmatrix", ("m16n16",), 100, 86, "a"),
    ("ldmatrix", ("m8n16",), 100, 86, "a"),
    ("stmatrix", (), 90, 78, ""),
    ("stmatrix", ("m16n8",), 100, 86, "a"),
    ("movmatrix", (), 75, 78, ""),
    # synchronization
    ("barrier", ("cluster",), 90, 78, ""),
    ("barrier", ("cluster", "relaxed"), 90, 80, ""),
    ("barrier", ("cluster", "release"), 90, 80, ""),
    ("barrier", ("cluster", "acquire"), 90, 80, ""),
    ("barrier", ("cta",), 30, 78, ""),
    ("bar", ("cta",), 30, 78, ""),
    ("bar", ("warp",), 30, 60, ""),  # sm_6x and below: the mask's lanes in convergence
    ("barrier", (), 30, 60, ""),
    ("fence", (), 70, 60, ""),
    ("fence", ("proxy", "async"), 90, 80, ""),
    ("fence", ("proxy", "alias"), 70, 75, ""),
    ("fence", ("proxy", "tensormap::generic"), 90, 83, ""),
    ("fence", ("mbarrier_init",), 90, 80, ""),
    ("fence", ("cluster",), 90, 78, ""),
    ("fence", ("sync_restrict::shared::cluster",), 90, 86, ""),
    ("fence", ("sync_restrict::shared::cta",), 90, 86, ""),
    # PTX ISA 9.3-9.5: the fabric proxy, and fences given a semantics or restricted to reads
    *(("fence", (w,), 100, 93, "") for w in ("fabric::fabric", "fabric::generic",
                                              "generic::fabric")),
    ("fence", ("proxy", "alias", "sys"), 90, 94, ""),
    ("fence", ("sync_restrict::shared::cluster::read",), 90, 94, ""),
    ("fence", ("sync_restrict::read",), 90, 95, ""),
    ("fabric", (), 100, 93, ""),
    ("fabric", ("commit_group",), 100, 95, ""),
    ("fabric", ("sync_restrict::read",), 100, 95, ""),
    ("membar", ("proxy",), 70, 75, ""),
    ("atom", ("f16",), 70, 63, ""),
    ("atom", ("f16x2",), 60, 62, ""),
    ("atom", ("bf16",), 90, 78, ""),
    ("atom", ("bf16x2",), 90, 78, ""),
    ("atom", ("b128",), 90, 83, ""),
    ("atom", ("b128", "sys"), 90, 84, ""),
    ("atom", ("L2::cache_hint",), 80, 74, ""),
    ("atom", ("f64",), 60, 30, ""),
    ("atom", ("relaxed",), 70, 60, ""),
    ("atom", ("acquire",), 70, 60, ""),
    ("atom", ("release",), 70, 60, ""),
    ("atom", ("acq_rel",), 70, 60, ""),
    ("atom", ("cluster",), 90, 78, ""),
    ("atom", ("v2",), 90, 81, ""),
    ("atom", ("v4",), 90, 81, ""),
    ("atom", ("v8",), 90, 81, ""),
    ("red", ("f16",), 70, 63, ""),
    ("red", ("f16x2",), 60, 62, ""),
    ("red", ("bf16",), 90, 78, ""),
    ("red", ("bf16x2",), 90, 78, ""),
    ("red", ("async",), 90, 81, ""),
    ("red", ("cluster",), 90, 78, ""),
    ("red", ("v2",), 90, 81, ""),
    ("red", ("v4",), 90, 81, ""),
    ("red", ("v8",), 90, 81, ""),
    ("vote", ("sync",), 30, 60, ""),
    ("shfl", ("sync",), 30, 60, ""),
    ("match", (), 70, 60, ""),
    ("activemask", (), 30, 62, ""),
    ("redux", (), 80, 70, ""),
    ("redux", ("f32",), 100, 86, "a"),
    ("griddepcontrol", (), 90, 78, ""),
    ("elect", (), 90, 80, ""),
    ("mbarrier", (), 80, 70, ""),
    ("mbarrier", ("test_wait", "parity"), 80, 71, ""),
    # a scope and its semantics (.release.cta, .acquire.cluster) are PTX ISA 8.0
    ("mbarrier", ("release",), 80, 80, ""),
    ("mbarrier", ("acquire",), 80, 80, ""),
    ("mbarrier", ("cta",), 80, 80, ""),
    ("mbarrier", ("try_wait",), 90, 78, ""),
    ("mbarrier", ("expect_tx",), 90, 80, ""),
    ("mbarrier", ("complete_tx",), 90, 80, ""),
    ("mbarrier", ("shared::cluster",), 90, 80, ""),
    ("mbarrier", ("cluster",), 90, 80, ""),
    # .relaxed on arrive and the waits is PTX ISA 8.6; expect_tx/complete_tx had it from 8.0
    # (CUDA 12.4's ptxas takes mbarrier.expect_tx.relaxed.cta, not mbarrier.arrive.relaxed)
    ("mbarrier", ("arrive", "relaxed"), 90, 86, ""),
    ("mbarrier", ("arrive_drop", "relaxed"), 90, 86, ""),
    ("mbarrier", ("test_wait", "relaxed"), 90, 86, ""),
    ("mbarrier", ("try_wait", "relaxed"), 90, 86, ""),
    ("nanosleep", (), 70, 63, ""),
    ("clusterlaunchcontrol", (), 100, 86, ""),
    ("setmaxnreg", (), 90, 80, "a"),
    # matrix
    ("wmma", (), 70, 60, ""),
    ("wmma", ("aligned",), 70, 63, ""),
    *(("wmma", (t,), 72, 63, "") for t in ("s8", "u8", "s4", "u4", "b1", "m8n8k32", "m8n8k128")),
    *(("wmma", (t,), 80, 70, "") for t in ("bf16", "tf32", "f64", "m16n16k8", "m8n8k4")),
    ("wmma", ("and",), 80, 71, ""),
    ("mma", (), 70, 64, ""),
    ("mma", ("m16n8k8",), 75, 65, ""),
    ("mma", ("m16n8k16",), 80, 70, ""),
    ("mma", ("m16n8k32",), 80, 70, ""),
    ("mma", ("m16n8k64",), 80, 70, ""),
    ("mma", ("m16n8k128",), 80, 70, ""),
    ("mma", ("m16n8k256",), 80, 70, ""),
    ("mma", ("m8n8k128",), 75, 70, ""),
    ("mma", ("m8n8k16",), 75, 65, ""),
    ("mma", ("m8n8k32",), 75, 65, ""),
    ("mma", ("m16n8k4",), 80, 70, ""),
    ("mma", ("sp",), 80, 71, ""),
    ("mma", ("sp::ordered_metadata",), 80, 85, ""),
    ("mma", ("and",), 80, 71, ""),
    ("mma", ("m8n8k4", "f64"), 80, 70, ""),
    *(("mma", (shape, "f64"), 90, 78, "") for shape in ("m16n8k4", "m16n8k8", "m16n8k16")),
    ("mma", ("m16n8k8", "bf16"), 80, 70, ""),
    ("mma", ("m16n8k8", "tf32"), 80, 70, ""),
    ("mma", ("e4m3",), 89, 84, ""),
    ("mma", ("e5m2",), 89, 84, ""),
    # FP8 with the .m16n8k16 shape or an .f16 accumulator: PTX ISA 8.7
    *(("mma", (t, other), 89, 87, "") for t in ("e4m3", "e5m2") for other in ("m16n8k16", "f16")),
    ("mma", ("kind::f8f6f4",), 120, 86, "a"),
    *(("mma", ("kind::f8f6f4", t), 120, 87, "a") for t in ("e3m2", "e2m3", "e2m1")),
    ("mma", ("block_scale",), 120, 87, "a"),
    ("wgmma", (), 90, 80, "a"),
    ("wgmma", ("sp",), 90, 82, "a"),
    # mixed integer types (.s8.u8, .u8.s8), dense or sparse: ptxas 13.0 under .version 8.3
    # answers "Feature 'WGMMA with mixed integer types' requires PTX ISA .version 8.4"
    ("wgmma", ("s8", "u8"), 90, 84, "a"),
    ("tcgen05", (), 100, 86, "a"),
    ("tcgen05", ("kind::mxf4nvf4",), 100, 87, "a"),
    ("tcgen05", ("scale_vec::4X",), 100, 87, "a"),
    ("tcgen05", ("block16",), 100, 88, "a"),
    ("tcgen05", ("block32",), 100, 88, "a"),
    ("tcgen05", ("ld", "red"), 100, 88, "a"),
    # the sm_107 family's lookup-table decompression and B collector (ptxas 13.5 under .version
    # 9.3: "Feature '.decompress::lut::b' requires PTX ISA .version 9.4 or later", and for
    # .collector::b::fill "Feature 'tcgen05.mma' requires ...")
    ("tcgen05", ("decompress::lut::b",), 100, 94, "a"),
    *(("tcgen05", (f"collector::b::{op}",), 100, 94, "a")
      for op in ("fill", "use", "lastuse", "discard")),
    # anything that names the cluster window of shared memory needs clusters
    ("*", ("shared::cluster",), 90, 78, ""),
    ("*", ("multicast::cluster",), 90, 80, ""),
    ("*", ("cta_group::1",), 100, 86, "a"),
    ("*", ("cta_group::2",), 100, 86, "a"),
    # cache qualifiers of ld/st/cp.async/prefetch/atom/red, all from PTX ISA 7.4 (ptxas 13.0
    # with .version 7.3: "Feature 'cache prefetching' requires PTX ISA .version 7.4", "Modifier
    # '.L2::cache_hint' requires PTX ISA .version 7.4", "Modifier '.evict_last' on 'ld' ...");
    # the sm_ bounds are the ISA's lower ones (sm_75 for prefetch sizes, sm_80 for cache hints)
    ("*", ("L2::64B",), 75, 74, ""),
    ("*", ("L2::128B",), 75, 74, ""),
    ("*", ("L2::256B",), 80, 74, ""),
    ("*", ("L2::cache_hint",), 80, 74, ""),
    ("*", ("L1::evict_normal",), 70, 74, ""),
    ("*", ("L1::evict_unchanged",), 70, 74, ""),
    ("*", ("L1::evict_first",), 70, 74, ""),
    ("*", ("L1::evict_last",), 70, 74, ""),
    ("*", ("L1::no_allocate",), 70, 74, ""),
    ("*", ("L2::evict_normal",), 70, 74, ""),
    ("*", ("L2::evict_first",), 70, 74, ""),
    ("*", ("L2::evict_last",), 70, 74, ""),
)

# Architecture-specific features that exist on the listed sm_ only (ptxas 13.0: "Instruction
# 'wgmma.fence' not supported on .target 'sm_100a'").
ONLY_ON: dict[str, tuple[int, ...]] = {
    "wgmma": (90,),
}

# ----------------------------------------------------------------------------- deprecations
# (opcode, modifier that makes it current, message, removed for sm >= N from PTX ISA M)
DEPRECATED: tuple[tuple[str, str, str, int, int], ...] = (
    ("shfl", "sync", "'shfl' without '.sync' is deprecated (PTX ISA 6.0); use 'shfl.sync'", 70, 64),
    ("vote", "sync", "'vote' without '.sync' is deprecated (PTX ISA 6.0); use 'vote.sync'", 70, 64),
)

# Forms ptxas 13.0 takes but advises against (its "info: Advisory" line), each with the modifier
# it names in place of one of the instruction's and the PTX ISA version that modifier needs:
# (opcode, modifier, advised modifier, why, PTX ISA version x10).
ADVISED: tuple[tuple[str, str, str, str, int], ...] = (
    ("mma", "sp", "sp::ordered_metadata",
     "ptxas 13.0: \"Modifier '.sp::ordered_metadata' should be used on instruction 'mma' "
     "instead of modifier '.sp' as it is expected to have substantially reduced performance "
     "on some future architectures\"", 85),
)
