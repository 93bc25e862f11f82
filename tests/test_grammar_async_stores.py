"""Families written down together (each case assembled with ptxas 13.0 first): st.async,
the narrow-float and accumulation-precision multimem forms, st .v8 of 8/16-bit types."""

from __future__ import annotations

from ptxlint.ptx import grammar
from tests.grammar_probe import judge, register_resolver

_PREFIX = {"%rd": "b64", "%fd": "f64", "%r": "b32", "%f": "f32", "%p": "pred", "%h": "b16",
           "%c": "b8"}

_resolve = register_resolver(_PREFIX)


def verdict(text: str) -> grammar.Verdict:
    return judge(text, _resolve)


def warned(text: str) -> bool:
    v = verdict(text)
    return v.status == "ok" and any(i.severity == "warning" for i in v.issues)


_SA = "st.async.weak.shared::cluster.mbarrier::complete_tx::bytes"


def test_st_async_is_judged() -> None:
    ok = verdict(f"{_SA}.b32 [%r1], %r2, [%r3];")
    assert ok.status == "ok" and not ok.issues and ok.need.sm == 90
    assert verdict(f"{_SA}.v4.f32 [%r1], {{%f1, %f2, %f3, %f4}}, [%r3];").status == "ok"
    assert verdict(f"{_SA}.v2.b64 [%r1], {{%rd2, %rd3}}, [%r3];").status == "ok"
    # 128 bits at most, 32- and 64-bit types only, exact register sizes (unlike st)
    assert verdict(f"{_SA}.v4.b64 [%r1], {{%rd1, %rd2, %rd3, %rd4}}, [%r3];").status == "error"
    assert verdict(f"{_SA}.b16 [%r1], %h2, [%r3];").status == "error"
    assert verdict(f"{_SA}.b32 [%r1], %rd2, [%r3];").status == "error"
    assert verdict(f"{_SA}.u64 [%r1], %fd2, [%r3];").status == "error"
    # .weak and .cluster exclude each other; .shared::cluster needs the completion mechanism
    assert verdict("st.async.weak.cluster.shared::cluster.mbarrier::complete_tx::bytes.b32 "
                   "[%r1], %r2, [%r3];").status == "error"
    assert verdict("st.async.shared::cluster.b32 [%r1], %r2, [%r3];").status == "error"
    # what ptxas takes beyond the ISA: a warning
    assert warned("st.async.shared::cta.b32 [%r1], %r2, [%r3];")
    assert warned(f"{_SA}.v4.b32 [%r1], %r2, [%r3];")


def test_st_async_vector_size_is_its_modifiers() -> None:
    """ptxas 13.0 (sm_90a): "Argument vector size mismatch for instruction 'st.async'" for
    .v2 with four registers; a scalar in the vector's place stays undocumented, and a vector
    without .v2/.v4 in a scalar's place is not judged (ptxas has rules of its own there)."""
    four = verdict(f"{_SA}.v2.b32 [%r1], {{%r2, %r3, %r4, %r5}}, [%r3];")
    assert four.status == "error" and "has 4 elements" in four.issues[0].message
    assert verdict(f"{_SA}.v4.b32 [%r1], {{%r2, %r3}}, [%r3];").status == "error"
    assert warned(f"{_SA}.v2.b32 [%r1], %r2, [%r3];")
    assert verdict(f"{_SA}.u32 [%r1], {{%r2, %r3}}, [%r3];").status == "abstain"
    # a vector of one is still a vector of the modifier's size, not the scalar (ptxas 13.0,
    # sm_90a: "Argument vector size mismatch"), with or without .weak
    for head in (_SA, _SA.replace(".weak", "")):
        one = verdict(f"{head}.v2.s64 [%r1], {{%rd2}}, [%r3];")
        assert one.status == "error" and "has 1 element" in one.issues[0].message
        assert one.issues[0].short_by == 1
        assert warned(f"{head}.v2.s64 [%r1], %rd2, [%r3];")
    # without a vector width, st.async's data in braces is still read as the scalar (its own
    # rules for a vector in a scalar's place are not judged); an add takes no vector at all
    # (ptxas 13.0: "Vector operand is not allowed for instruction 'add'")
    assert verdict("add.u32 %r1, {%r2}, %r3;").status == "error"
    assert verdict(f"{_SA}.b32 [%r1], {{%r2}}, [%r3];").status == "abstain"


def test_st_async_release_form() -> None:
    ok = verdict("st.async.release.gpu.global.b8 [%rd1], %c2;")
    assert ok.status == "ok" and ok.need.sm == 100
    assert verdict("st.async.release.gpu.global.b8 [%rd1], %h2;").status == "error"
    assert verdict("st.async.release.cta.global.b32 [%rd1], %r2;").status == "error"
    assert verdict("st.async.release.gpu.global.v2.b32 [%rd1], {%r2, %r3};").status == "error"
    assert verdict("st.async.mmio.global.b32 [%rd1], %r2;").status == "error"  # needs .release


def test_st_async_scope_alone_is_undocumented() -> None:
    """ptxas 13.0 takes a scope with neither .release nor a state space nor an mbarrier, from
    sm_90 on (sm_90a, sm_100a, sm_120a): undocumented; not with .mmio ("requires modifier
    '.release'"), .weak, a vector or an mbarrier ("requires '.global' space")."""
    for text in ("st.async.gpu.b8 [%rd1], %c2;", "st.async.sys.u64 [%rd1], %rd2;"):
        v = verdict(text)
        assert warned(text) and v.need.sm == 90, text
    assert verdict("st.async.mmio.gpu.b32 [%rd1], %r2;").status == "error"
    assert verdict("st.async.weak.gpu.b32 [%rd1], %r2;").status == "error"
    assert verdict("st.async.gpu.v2.b32 [%rd1], {%r2, %r3};").status == "error"
    assert verdict("st.async.gpu.b32 [%rd1], %r2, [%rd3];").status == "error"


def test_multimem_narrow_floats() -> None:
    ok = verdict("multimem.ld_reduce.global.add.acc::f16.e4m3x4 %r1, [%rd1];")
    assert ok.status == "ok" and ok.need.suffix == "f" and not ok.need.admits(100, "")
    assert ok.need.admits(120, "a") and ok.need.admits(100, "f")
    assert verdict("multimem.ld_reduce.global.min.v4.e4m3 {%c1, %c2, %c3, %c4}, [%rd1];"
                   ).status == "ok"
    assert verdict("multimem.ld_reduce.global.add.v4.e4m3 {%h1, %h2, %h3, %h4}, [%rd1];"
                   ).status == "error"  # one .b8 register an element
    assert verdict("multimem.ld_reduce.global.add.e4m3 %c1, [%rd1];").status == "error"
    assert verdict("multimem.ld_reduce.global.and.e5m2x4 %r1, [%rd1];").status == "error"
    assert verdict("multimem.ld_reduce.global.min.acc::f16.e4m3x4 %r1, [%rd1];"
                   ).status == "error"
    assert verdict("multimem.st.global.e5m2x4 [%rd1], %f1;").status == "ok"
    assert verdict("multimem.red.global.add.e4m3x4 [%rd1], %r1;").status == "error"


def test_multimem_store_and_reduction_take_an_accumulation_precision() -> None:
    assert warned("multimem.st.acc::f32.global.v2.f16 [%rd1], {%h1, %h2};")
    assert warned("multimem.red.acc::f16.global.add.u32 [%rd1], %r1;")
    assert verdict("multimem.st.acc::f32.acc::f16.global.f32 [%rd1], %f1;").status == "error"
    assert verdict("multimem.ld_reduce.acc::f32.global.add.f32 %f1, [%rd1];").status == "error"


def test_st_v8_of_narrow_types_is_undocumented_and_ld_abstains() -> None:
    eight = "{%h0, %h1, %h2, %h3, %h4, %h5, %h6, %h7}"
    assert warned(f"st.global.v8.b16 [%rd1], {eight};")
    assert verdict("st.global.v8.b16 [%rd1], {%h0, %h1};").status == "error"
    # ptxas 13.0 crashes on the loads: no verdict to agree with
    assert verdict(f"ld.global.v8.b16 {eight}, [%rd1];").status == "abstain"


def test_features_a_family_member_lacks() -> None:
    # ptxas 13.0: "Feature '.kind::i8' not supported on .target 'sm_103a'", "Feature
    # 'argument scale-inp-d-imm' not supported on .target 'sm_110a'", "Feature '.rs' not
    # supported on .target 'sm_110a'", "Instruction 'redux.f32' not supported on ... sm_110a"
    i8 = verdict("tcgen05.mma.cta_group::1.kind::i8 [%r1], %rd2, %rd3, %r4, %p5;").need
    assert i8.admits(100, "a") and i8.admits(110, "a") and not i8.admits(103, "a")
    scaled = verdict("tcgen05.mma.cta_group::1.kind::f16 [%r1], %rd2, %rd3, %r4, %p5, 3;").need
    assert scaled.admits(103, "a") and not scaled.admits(110, "a")
    plain = verdict("tcgen05.mma.cta_group::1.kind::f16 [%r1], %rd2, %rd3, %r4, %p5;").need
    assert plain.admits(110, "a")
    # .kind::i8's scale immediate is on sm_110a (not on sm_103a, like .kind::i8 itself)
    i8_scaled = verdict("tcgen05.mma.cta_group::1.kind::i8.ashift [%r1], [%r2], %rd3, %r4, "
                        "%p5, 0;").need
    assert i8_scaled.admits(110, "a") and not i8_scaled.admits(103, "a")
    assert not verdict("cvt.rs.f16x2.f32 %r1, %f2, %f3, %r4;").need.admits(110, "a")
    redux = verdict("redux.sync.min.f32 %f1, %f2, 0xffffffff;").need
    assert redux.admits(103, "a") and not redux.admits(110, "a")
    # the sm_100a features are on sm_107a too (ptxas 13.5), .kind::i8 is not
    assert grammar.Need.parse("100a-103-110").only == (100, 101, 107)
    assert not i8.admits(107, "a") and scaled.admits(107, "a") and redux.admits(107, "f")


def test_128_bit_atom_takes_the_sink_for_its_old_value() -> None:
    # ptxas 13.0 assembles all three on sm_90 (as for the narrower atom forms)
    _PREFIX["%q"] = "b128"
    try:
        for text in ("atom.cas.b128 _, [%rd2], %q3, %q0;",
                     "atom.relaxed.gpu.global.exch.b128 _, [%rd2], %q3;",
                     "atom.cluster.exch.L2::cache_hint.b128 _, [%rd2], %q3, %rd4;"):
            assert verdict(text).status == "ok", text
        # the sink stands for the result only, never for a value the instruction reads
        assert verdict("atom.cas.b128 %q1, [%rd2], _, %q0;").status == "error"
    finally:
        del _PREFIX["%q"]


def test_tensormap_replace_ordinals_and_field_codes() -> None:
    # ptxas 13.0: "value '5' expected to be in range [0..4] when .box_dim modifier is used",
    # and the like for each enumerated field
    tm = "tensormap.replace.tile"
    for text in (f"{tm}.box_dim.global.b1024.b32 [%rd1], 4, %r1;",
                 f"{tm}.global_stride.global.b1024.b64 [%rd1], 4, %rd2;",
                 f"{tm}.swizzle_mode.global.b1024.b32 [%rd1], 3;",
                 f"{tm}.interleave_layout.shared::cta.b1024.b32 [%r1], 2;",
                 f"{tm}.fill_mode.global.b1024.b32 [%rd1], 1;"):
        assert verdict(text).status == "ok", text
    for text, codes in ((f"{tm}.box_dim.global.b1024.b32 [%rd1], 5, %r1;", "[0..4]"),
                        (f"{tm}.element_stride.global.b1024.b32 [%rd1], -1, %r1;", "[0..4]"),
                        (f"{tm}.global_stride.global.b1024.b64 [%rd1], 5, %rd2;", "[0..4]"),
                        (f"{tm}.swizzle_mode.global.b1024.b32 [%rd1], 4;", "[0..3]"),
                        (f"{tm}.interleave_layout.global.b1024.b32 [%rd1], 3;", "[0..2]"),
                        (f"{tm}.fill_mode.global.b1024.b32 [%rd1], 2;", "[0..1]"),
                        (f"{tm}.swizzle_atomicity.global.b1024.b32 [%rd1], 4;", "[0..3]"),
                        (f"{tm}.elemtype.global.b1024.b32 [%rd1], 16;", "in range")):
        v = verdict(text)
        assert v.status == "error" and codes in v.issues[0].message, (text, v.issues)
    # .elemtype's sub-byte codes 13..15 are the sm_100 and sm_120 families' ("[0..12]" on
    # sm_90a); 0..12 stay sm_90a's
    assert verdict(f"{tm}.elemtype.global.b1024.b32 [%rd1], 12;").need.sm == 90
    wide = verdict(f"{tm}.elemtype.global.b1024.b32 [%rd1], 13;")
    assert wide.status == "ok" and wide.need.sm == 100 and wide.need.suffix == "f"
