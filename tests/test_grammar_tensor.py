"""The tensor-core forms (ptxlint/ptx/grammar_data_tensor.py): wgmma, mma.sync, ldmatrix/
stmatrix, tcgen05; and the two notations they brought (shape-sized vectors, positional types).
"""

from __future__ import annotations

from ptxlint.ptx import grammar
from tests.grammar_probe import integer_immediate, judge, register_resolver
from tests.grammar_probe import vector as _vec

_PREFIX = {"%rd": "b64", "%fd": "f64", "%r": "b32", "%f": "f32", "%p": "pred", "%h": "b16"}

_resolve = register_resolver(_PREFIX, integer_immediate)


def verdict(text: str) -> grammar.Verdict:
    return judge(text, _resolve)


def test_vector_count_follows_the_bound_word() -> None:
    assert grammar.vector_count("4", {}) == 4
    assert grammar.vector_count("V", {"V": "v4"}) == 4
    assert grammar.vector_count("S/2", {"S": "m64n64k16"}) == 32
    assert grammar.vector_count("S/4", {"S": "m64n8k16"}) == 2
    assert grammar.vector_count("N*2", {"N": "x8"}) == 16
    assert grammar.vector_count("S/2", {}) is None
    assert grammar.vector_count("D", {"D": "3d"}) == 3  # a tensor's coordinates
    assert grammar.vector_count("V", {"V": "u32"}) is None
    assert grammar.vector_count("V", {"V": "v4x"}) is None  # the whole word, not a prefix


def test_wgmma_accumulator_grows_with_n() -> None:
    head = "wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 "
    ok = verdict(f"{head}{_vec('%f', 32)}, %rd1, %rd2, %p1, 1, 1, 0, 0;")
    assert ok.status == "ok" and ok.need.target == "sm_90a"
    short = verdict(f"{head}{_vec('%f', 16)}, %rd1, %rd2, %p1, 1, 1, 0, 0;")
    assert short.status == "error" and "takes 32" in short.issues[0].message
    # the f16 accumulator is packed: n/4 .b32 registers, never .f32 ones
    f16 = "wgmma.mma_async.sync.aligned.m64n8k16.f16.f16.f16 "
    assert verdict(f"{f16}{_vec('%r', 2)}, %rd1, %rd2, %p1, 1, 1, 0, 0;").status == "ok"
    assert verdict(f"{f16}{_vec('%f', 2)}, %rd1, %rd2, %p1, 1, 1, 0, 0;").status == "error"


def test_wgmma_immediates_and_operand_counts() -> None:
    head = "wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 {%f0, %f1, %f2, %f3}, "
    assert verdict(f"{head}%rd1, %rd2, 1, -1, 1, 0, 1;").status == "ok"  # scale-d immediate
    bad = verdict(f"{head}%rd1, %rd2, %p1, 2, 1, 0, 0;")
    assert "expected -1 or 1" in bad.issues[0].message
    # A from registers takes no imm-trans-a
    assert verdict(f"{head}{{%r0, %r1, %r2, %r3}}, %rd2, %p1, 1, 1, 0;").status == "ok"
    assert verdict(f"{head}{{%r0, %r1, %r2, %r3}}, %rd2, %p1, 1, 1, 0, 0;").status == "error"
    # tf32 and fp8 have no transpose immediates at all
    tf32 = "wgmma.mma_async.sync.aligned.m64n8k8.f32.tf32.tf32 {%f0, %f1, %f2, %f3}, "
    assert verdict(f"{tf32}%rd1, %rd2, %p1, 1, 1;").status == "ok"
    assert verdict(f"{tf32}%rd1, %rd2, %p1, 1, 1, 0, 0;").status == "error"


def test_wgmma_integer_shapes_and_type_positions() -> None:
    ok = verdict(f"wgmma.mma_async.sync.aligned.m64n48k32.s32.s8.u8 {_vec('%r', 24)}, "
                 "%rd1, %rd2, %p1;")
    assert ok.status == "ok"
    odd = verdict(f"wgmma.mma_async.sync.aligned.m64n40k32.s32.s8.u8 {_vec('%r', 20)}, "
                  "%rd1, %rd2, %p1;")
    assert odd.status == "error"  # ptxas: "Illegal matrix shape '.m64n40k32'"
    moved = verdict("wgmma.mma_async.sync.aligned.m64n8k16.bf16.bf16.f32 "
                    "{%f0, %f1, %f2, %f3}, %rd1, %rd2, %p1, 1, 1, 0, 0;")
    assert moved.status == "error" and "out of place" in moved.issues[0].message


def test_wgmma_without_aligned_is_a_warning() -> None:
    v = verdict("wgmma.fence.sync;")
    assert v.status == "ok" and v.issues and v.issues[0].severity == "warning"
    assert verdict("wgmma.wait_group.sync.aligned %r1;").status == "error"  # an immediate only
    assert verdict("wgmma.sync.aligned.fence;").status == "error"


def test_mma_variants_that_used_to_abstain() -> None:
    f64 = verdict("mma.sync.aligned.m16n8k8.row.col.f64.f64.f64.f64 {%fd0, %fd1, %fd2, %fd3}, "
                  "{%fd4, %fd5, %fd6, %fd7}, {%fd8, %fd9}, {%fd0, %fd1, %fd2, %fd3};")
    assert f64.status == "ok" and f64.need.sm == 90
    fp8 = verdict("mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e5m2.f32 {%f0, %f1, %f2, %f3}, "
                  "{%r0, %r1, %r2, %r3}, {%r4, %r5}, {%f0, %f1, %f2, %f3};")
    assert fp8.status == "ok" and fp8.need.sm == 89
    and_popc = verdict("mma.sync.aligned.m8n8k128.row.col.s32.b1.b1.s32.and.popc {%r0, %r1}, "
                       "{%r2}, {%r3}, {%r0, %r1};")
    assert and_popc.status == "ok" and and_popc.need.sm == 80
    # the sparsity selector's range follows the shape (ptxas: "expected to be in range [0..0]")
    sparse = ("mma.sp.sync.aligned.m16n8k64.row.col.s32.s8.s8.s32 {%r0, %r1, %r2, %r3}, "
              "{%r4, %r5, %r6, %r7}, {%r8, %r9, %r10, %r11}, {%r0, %r1, %r2, %r3}, %r12, ")
    assert verdict(sparse + "0;").status == "ok"
    assert "expected 0" in verdict(sparse + "1;").issues[0].message
    # layouts by position: a is .row, b is .col
    swapped = verdict("mma.sync.aligned.m16n8k8.col.row.f32.f16.f16.f32 {%f0, %f1, %f2, %f3}, "
                      "{%r0, %r1}, {%r2}, {%f0, %f1, %f2, %f3};")
    assert swapped.status == "error"
    # block scaling: 4X goes with .ue4m3 on ptxas 13.0; 4X.ue8m0 is CUDA 13.1's: an error
    # that names ptxas 13.1, which the rules drop where cuda-version is 13.1 or newer
    scaled = ("mma.sync.aligned.m16n8k64.row.col.kind::mxf4nvf4.block_scale.scale_vec::4X"
              ".f32.e2m1.e2m1.f32.{} {{%f0, %f1, %f2, %f3}}, {{%r0, %r1, %r2, %r3}}, "
              "{{%r4, %r5}}, {{%f0, %f1, %f2, %f3}}, {{%r6}}, {{%h0, %h1}}, %r7, {{0, 0}};")
    ok = verdict(scaled.format("ue4m3"))
    assert ok.status == "ok" and ok.need.target == "sm_120f"
    newer = verdict(scaled.format("ue8m0"))
    assert newer.status == "error" and newer.issues[0].toolkit == (13, 1)
    assert "ptxas 13.1" in newer.issues[0].message


def test_ldmatrix_8bit_shapes() -> None:
    ok = verdict("ldmatrix.sync.aligned.m16n16.x2.trans.shared.b8 {%r0, %r1, %r2, %r3}, [%rd1];")
    assert ok.status == "ok" and ok.need.sm == 100
    assert verdict("ldmatrix.sync.aligned.m16n16.x2.shared.b8 {%r0, %r1, %r2, %r3}, [%rd1];"
                   ).status == "error"  # ptxas: "Modifier '.trans' require"
    assert verdict("ldmatrix.sync.aligned.m8n16.x1.shared.b8x16.b6x16_p32 {%r0}, [%rd1];"
                   ).status == "ok"


def test_tcgen05_ld_st_count_follows_shape_and_num() -> None:
    ok = verdict(f"tcgen05.ld.sync.aligned.16x256b.x2.b32 {_vec('%r', 8)}, [%r9];")
    assert ok.status == "ok" and ok.need.target == "sm_100f"
    short = verdict(f"tcgen05.ld.sync.aligned.16x128b.x2.b32 {_vec('%r', 2)}, [%r9];")
    assert short.status == "error" and "takes 4" in short.issues[0].message
    assert verdict("tcgen05.ld.sync.aligned.16x256b.x64.b32 {%r0}, [%r9];").status == "error"
    # tensor-memory addresses are 32-bit registers
    wide = verdict("tcgen05.st.sync.aligned.32x32b.x1.b32 [%rd1], {%r0};")
    assert wide.status == "error" and wide.issues[0].kind == "type"
    # the half-split offset of .16x32bx2 is an immediate
    assert verdict("tcgen05.ld.sync.aligned.16x32bx2.x1.b32 {%r0}, [%r9], 2;").status == "ok"
    assert verdict("tcgen05.ld.sync.aligned.16x32bx2.x1.b32 {%r0}, [%r9], %r2;"
                   ).status == "error"


def test_tcgen05_ld_takes_no_sink_in_its_result_vector() -> None:
    # ptxas 13.0, every shape and tcgen05.ld.red: "Result discard mode is not allowed for
    # instruction 'ld'" ({_} alone: "Unable to infer type of vector elements")
    for text in ("tcgen05.ld.sync.aligned.32x32b.x2.b32 {_, %r1}, [%r2];",
                 "tcgen05.ld.sync.aligned.32x32b.x1.b32 {_}, [%r2];",
                 "tcgen05.ld.sync.aligned.16x32bx2.x2.b32 {%r1, _}, [%r2], 2;",
                 "tcgen05.ld.red.sync.aligned.32x32b.x2.min.u32 {_, %r1}, %r3, [%r2];"):
        result = verdict(text)
        assert result.status == "error" and "sink" in result.issues[0].message, text
    assert verdict("tcgen05.ld.sync.aligned.32x32b.x2.b32 {%r1, %r3}, [%r2];").status == "ok"


def test_tcgen05_mma_operands() -> None:
    head = "tcgen05.mma.cta_group::1.kind::f16 [%r1], %rd2, %rd3, %r4"
    assert verdict(f"{head}, %p1;").status == "ok"
    assert verdict(f"{head}, {{%r5, %r6, %r7, %r8}}, %p1, 15;").status == "ok"
    assert verdict(f"{head}, %p1, 16;").status == "error"  # ptxas: "in range [0..15]"
    # cta_group::2 masks eight lanes; .ws has no cta_group::2; f8f6f4 takes no scale immediate
    assert verdict(f"{head}, {{%r5, %r6, %r7, %r8, %r5, %r6, %r7, %r8}}, %p1;"
                   ).status == "error"
    assert verdict("tcgen05.mma.ws.cta_group::2.kind::f16 [%r1], %rd2, %rd3, %r4, %p1;"
                   ).status == "error"
    assert verdict("tcgen05.mma.cta_group::1.kind::f8f6f4 [%r1], %rd2, %rd3, %r4, %p1, 1;"
                   ).status == "error"
    # block scaling: the scale tensors in tensor memory, no lanes; sparse: metadata before idesc
    assert verdict("tcgen05.mma.cta_group::1.kind::mxf8f6f4.block_scale [%r1], %rd2, %rd3, "
                   "%r4, [%r5], [%r6], %p1;").status == "ok"
    assert verdict("tcgen05.mma.sp.cta_group::1.kind::f16 [%r1], %rd2, %rd3, [%r9], %r4, "
                   "{%r5, %r6, %r7, %r8}, %p1;").status == "ok"
    assert verdict("tcgen05.mma.sp.ws.cta_group::1.kind::f16 [%r1], %rd2, %rd3, [%r9], %r4, "
                   "%p1;").status == "error"  # ptxas: "Unknown modifier '.ws'"


def test_the_closest_form_takes_vectors_and_addresses_where_the_instruction_has_them() -> None:
    # ptxas 13.0: "Argument 5 of instruction 'tcgen05.mma': value '16' out of range, expected
    # to be in range [0..15]": the scale-input-d immediate, not a disable-output-lane vector
    head = "tcgen05.mma.cta_group::1.kind::f16 [%r1], %rd2, %rd3, %r4"
    scaled = verdict(f"{head}, %p1, 16;")
    assert [i.message for i in scaled.issues] == [
        "unexpected value '16' for operand 6 of 'tcgen05.mma.cta_group::1.kind::f16': "
        "expected in range [0..15]"]
    # ptxas: ".kind::f8f6f4 ... with 'arg scale-inp-d-imm'": one operand too many, not '%p1'
    # in a vector's place
    f8 = verdict("tcgen05.mma.cta_group::1.kind::f8f6f4 [%r1], %rd2, %rd3, %r4, %p1, 2;")
    assert "takes 5 operands, not 6" in f8.issues[0].message
    # A in registers takes one transpose immediate (ptxas: "Arguments mismatch"): an extra
    # immediate, not a register vector where the descriptor form takes a descriptor
    wg = verdict("wgmma.mma_async.sync.aligned.m64n8k16.f32.bf16.bf16 "
                 f"{_vec('%f', 4)}, {_vec('%r', 4)}, %rd1, %p1, 1, 1, 0, 1;")
    assert "takes 7 operands, not 8" in wg.issues[0].message


def test_a_vector_of_wrong_registers_is_one_wrong_operand_when_forms_compete() -> None:
    # ptxas 13.0: "Arguments mismatch" for each; the registers are what is wrong, not the
    # operand count of a form the vector does not even fit
    regs = verdict("wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 "
                   f"{_vec('%f', 4)}, {_vec('%rd', 4)}, %rd1, %p1, 1, 1, 0;")
    assert "'%rd0' is a .b64 register" in regs.issues[0].message
    tf32 = verdict("wgmma.mma_async.sync.aligned.m64n8k8.f32.tf32.tf32 "
                   f"{_vec('%f', 4)}, {_vec('%f', 4)}, %rd1, %p1, 1, 1;")
    assert "is a .f32 register" in tf32.issues[0].message
    # the f16 accumulator packs two halves per .b32 register: .f32 ones are the mistake
    f16 = verdict("wgmma.mma_async.sync.aligned.m64n8k16.f16.f16.f16 "
                  f"{_vec('%f', 2)}, %rd1, %rd2, %p1, 1, 1, 0, 0;")
    assert all("is a .f32 register" in i.message for i in f16.issues)


def test_tcgen05_mma_descriptors_and_zero_column_mask_may_be_immediates() -> None:
    # ptxas 13.0 (sm_100a) assembles constant descriptors, idesc and .ws's zero-column-mask;
    # tilelang's tcgen05mma.h writes `..., %3, p, 0`
    ws = "tcgen05.mma.ws.cta_group::1.kind::f16 [%r1], %rd2, %rd3, %r4, %p1"
    assert verdict(f"{ws}, 0;").status == "ok"
    assert verdict(f"{ws}, %rd5;").status == "ok"
    assert verdict(f"{ws}, %r5;").status == "error"  # ptxas: "Arguments mismatch"
    assert verdict("tcgen05.mma.cta_group::1.kind::f16 [%r1], 5, 6, 7, %p1;").status == "ok"
    assert verdict("tcgen05.mma.ws.sp.cta_group::1.kind::i8 [%r1], 5, 6, [%r4], 7, 1, 9;"
                   ).status == "ok"
    # the disable-output-lane vector stays registers only
    assert verdict("tcgen05.mma.cta_group::1.kind::f16 [%r1], %rd2, %rd3, %r4, {1, 2, 3, 4}, "
                   "%p1, 1;").status == "error"


def test_tcgen05_immediates_where_ptxas_takes_them() -> None:
    # measured with ptxas 13.0 for sm_100a (benchmark mutation register-as-immediate)
    assert verdict("tcgen05.cp.cta_group::1.128x256b [%r1], 1;").status == "ok"
    assert verdict("tcgen05.dealloc.cta_group::1.sync.aligned.b32 0, 32;").status == "ok"
    alloc = "tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%rd1]"
    assert verdict(f"{alloc}, 64;").status == "ok"
    assert verdict(f"{alloc}, %r2;").status == "ok"
    assert verdict(f"{alloc}, 48;").status == "error"  # "value must be power of 2"
    assert verdict(f"{alloc}, 1024;").status == "error"  # "in range [32..512]"
    commit = "tcgen05.commit.cta_group::1.mbarrier::arrive::one.multicast::cluster.b64 [%rd1]"
    assert verdict(f"{commit}, %h1;").status == "ok"
    assert verdict(f"{commit}, 3;").status == "error"  # "Arguments mismatch"


def test_tcgen05_dealloc_count_is_a_multiple_of_32() -> None:
    # ptxas 13.0: -32, 0, 544 and 1024 assemble; 33 is "expected to be multiple of 32"
    dealloc = "tcgen05.dealloc.cta_group::1.sync.aligned.b32 %r1"
    for good in (0, 32, 544, 1024, -32):
        assert verdict(f"{dealloc}, {good};").status == "ok", good
    bad = verdict(f"{dealloc}, 33;")
    assert bad.status == "error" and "a multiple of 32" in bad.issues[0].message


def test_wgmma_descriptors_and_mbarrier_state_may_be_immediates() -> None:
    # ptxas 13.0 (sm_90a) assembles constant wgmma descriptors and mbarrier wait states
    assert verdict("wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 {%f0, %f1, %f2, %f3}, "
                   "5, 6, %p1, 1, 1, 0, 0;").status == "ok"
    assert verdict("mbarrier.test_wait.shared.b64 %p1, [%rd2], 1;").status == "ok"
    assert verdict("mbarrier.try_wait.shared.b64 %p1, [%rd2], 1, 100;").status == "ok"
