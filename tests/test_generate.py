"""``ptxlint new``: the statement derived from the grammar (no toolchain needed here; the
compiled and assembled evidence is tests/test_generate_toolchain.py)."""

from __future__ import annotations

import pytest

from ptxlint.cli import main
from ptxlint.generate import NotExpressible, SelectionError, derive, generate, select
from ptxlint.generate.complete import continuations
from ptxlint.generate.guard import condition
from ptxlint.lsp.completion import complete, template_prefix
from ptxlint.lsp.hover import derived_constraints


def constraints(opcode: str) -> tuple[str, ...]:
    return derive(select(opcode)).constraints


# ----------------------------------------------------------------------------- C++ wrappers


def test_cp_async_binds_shared_destination_through_cvta_and_size_as_immediate() -> None:
    text = generate("cp.async.ca.shared.global")
    assert '"r"(static_cast<uint32_t>(__cvta_generic_to_shared(dst)))' in text
    assert '"l"(static_cast<uint64_t>(__cvta_generic_to_global(src)))' in text
    assert '"n"(N)' in text and "template <int N>" in text
    assert "static_assert(N == 4 || N == 8 || N == 16" in text
    assert "asm volatile(" in text and ': "memory");' in text
    assert "#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800" in text


@pytest.mark.parametrize(("opcode", "letters"), [
    ("add.u32", ("=r", "r", "r")),
    ("add.s64", ("=l", "l", "l")),
    ("add.f32", ("=f", "f", "f")),
    ("add.f64", ("=d", "d", "d")),
    ("add.f16", ("=h", "h", "h")),
    ("add.rn.f16x2", ("=r", "r", "r")),
])
def test_constraint_letters_follow_the_operand_types(opcode: str, letters: tuple[str, ...]) -> None:
    assert constraints(opcode) == letters


def test_pure_arithmetic_is_neither_volatile_nor_clobbering() -> None:
    derived = derive(select("add.u32"))
    assert not derived.volatile and not derived.memory
    text = generate("add.u32")
    assert "asm(" in text and "memory" not in text
    assert "__device__ __forceinline__ uint32_t add_u32(uint32_t a, uint32_t b)" in text


def test_read_only_load_is_pure_and_takes_a_const_pointer() -> None:
    derived = derive(select("ld.global.nc.v4.f32"))
    assert not derived.volatile and not derived.memory
    assert derived.constraints == ("=f", "=f", "=f", "=f", "l")
    assert "float (&d)[4], const void* addr" in generate("ld.global.nc.v4.f32")


def test_store_is_volatile_with_memory_clobber() -> None:
    derived = derive(select("st.shared.u32"))
    assert derived.volatile and derived.memory
    assert derived.constraints == ("r", "r")


def test_predicate_result_goes_through_a_braced_pred_register_and_selp() -> None:
    derived = derive(select("setp.eq.u32"))
    assert derived.braces
    assert derived.lines == (".reg .pred p0;", "setp.eq.u32 p0, %1, %2;", "selp.u32 %0, 1, 0, p0;")
    text = generate("setp.eq.u32")
    assert "__device__ __forceinline__ bool setp_eq_u32(" in text and "d = d_bits != 0;" in text


def test_predicate_input_is_set_from_a_32_bit_value() -> None:
    derived = derive(select("selp.b32"))
    assert derived.lines[:2] == (".reg .pred p0;", "setp.ne.u32 p0, %3, 0;")
    assert derived.inputs[-1].expression == "static_cast<uint32_t>(c)"


def test_elect_writes_its_predicate_half_through_selp() -> None:
    derived = derive(select("elect.sync"))
    assert derived.lines[1] == "elect.sync %0|p0, %2;"
    assert derived.constraints == ("=r", "=r", "r")


def test_exactly_8_bit_result_goes_through_a_b8_register() -> None:
    derived = derive(select("cvt.rni.u8.bf16"))
    assert derived.lines == (".reg .b8 c0;", "cvt.rni.u8.bf16 c0, %1;", "cvt.u16.u8 %0, c0;")
    assert derived.constraints == ("=h", "h")


def test_wgmma_accumulator_is_read_write_under_the_sm90a_feature_guard() -> None:
    text = generate("wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16")
    assert '"+f"(d[0])' in text and "float (&d)[4]" in text
    assert "(defined(__CUDA_ARCH_SPECIFIC__) && __CUDA_ARCH_SPECIFIC__ == 900)" in text


def test_mma_vectors_are_arrays() -> None:
    text = generate("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32")
    assert ("(float (&d)[4], const uint32_t (&a)[4], const uint32_t (&b)[2], "
            "const float (&c)[4])") in text


def test_branch_label_is_scoped_by_braces_not_numbered() -> None:
    # nvcc 13.0 passes GCC's %= through to ptxas unexpanded: braces make the label unique
    derived = derive(select("bra"))
    assert derived.braces and "%=" not in derived.template
    assert derived.lines == ("bra Lptxlint_next;", "Lptxlint_next:")


def test_kernel_calls_the_wrapper_with_shared_memory_for_shared_addresses() -> None:
    text = generate("cp.async.ca.shared.global", kernel=True)
    assert "__global__ void cp_async_ca_shared_global_kernel(void* src)" in text
    assert "__shared__ alignas(1024) unsigned char smem[1024];" in text
    assert "cp_async_ca_shared_global<16>(smem + 0, src);" in text


def test_name_option_names_wrapper_and_kernel() -> None:
    text = generate("add.u32", name="add_one", kernel=True)
    assert "uint32_t add_one(" in text and "add_one_kernel(" in text


# ----------------------------------------------------------------------------- guards


def test_guard_of_a_family_feature_tests_the_family_macro() -> None:
    need = select("cvt.rn.satfinite.e2m1x2.f32").need
    assert "__CUDA_ARCH_FAMILY_SPECIFIC__ == 1000" in condition(need)
    assert "__CUDA_ARCH_FAMILY_SPECIFIC__ == 1200" in condition(need)


def test_guard_of_a_form_newer_than_the_toolkit_tests_the_nvcc_version() -> None:
    assert "__CUDACC_VER_MAJOR__ == 13 && __CUDACC_VER_MINOR__ >= 2" in condition(
        select("max.u8x4").need)


def test_guard_keeps_out_the_toolkits_a_modifier_is_too_new_for() -> None:
    # the form (st.relaxed ... .b128, sm_70) states no PTX ISA version; .b128 with .sys needs
    # 8.4 (ptxas 12.4 and 13.0: "Feature '.b128 with .sys' requires PTX ISA .version 8.4")
    need = select("st.relaxed.sys.global.b128").need
    assert "__CUDA_ARCH__ >= 700" in condition(need)
    assert "__CUDACC_VER_MAJOR__ == 12 && __CUDACC_VER_MINOR__ >= 4" in condition(need)
    assert "PTX ISA 8.4 (CUDA 12.4)" in generate("st.relaxed.sys.global.b128")
    assert "__CUDACC_VER" not in condition(select("st.relaxed.sys.global.b64").need)


def test_guard_of_a_removed_form_keeps_older_targets_only() -> None:
    assert "__CUDA_ARCH__ < 700" in condition(select("vote.all.pred").need)


# ----------------------------------------------------------------------------- what it refuses


def test_an_opcode_without_its_type_names_the_choices() -> None:
    with pytest.raises(SelectionError, match=r"does not fix the whole instruction.*\.u32.*\.f32"):
        select("add")


def test_a_misspelt_modifier_is_named_with_a_suggestion() -> None:
    with pytest.raises(SelectionError, match=r"'\.u33'; did you mean '\.u32'"):
        select("add.u33")


def test_an_unknown_opcode_is_refused() -> None:
    with pytest.raises(SelectionError, match="not a PTX opcode"):
        select("frobnicate.u32")


def test_an_undocumented_form_is_refused_naming_the_documented_spelling() -> None:
    with pytest.raises(SelectionError, match="does not\\s+document.*'barrier.sync.aligned'"):
        select("barrier.aligned.sync")
    with pytest.raises(SelectionError, match="'wgmma.mma_async.sync.aligned.m64n8k16.f32"):
        select("wgmma.mma_async.sync.m64n8k16.f32.f16.f16")


def test_a_param_space_address_is_not_expressible() -> None:
    with pytest.raises(NotExpressible, match=r"\.param address"):
        derive(select("ld.param.u32"))


def test_cli_prints_the_wrapper_and_exits_2_on_what_it_cannot_write(capsys) -> None:
    assert main(["new", "add.u32"]) == 0
    assert "add_u32" in capsys.readouterr().out
    assert main(["new", "add"]) == 2
    assert "does not fix the whole instruction" in capsys.readouterr().err
    assert main(["new", "ld.param.u32"]) == 2
    assert main(["new", "add.u32", "--dialect", "triton", "--kernel"]) == 2


# ----------------------------------------------------------------------------- Triton


def test_triton_packs_f16x2_two_elements_per_register() -> None:
    text = generate("add.rn.f16x2", dialect="triton")
    assert "constraints='=r,r,r'" in text and "pack=2" in text and "dtype=tl.float16" in text
    assert "is_pure=True" in text


def test_triton_reduction_is_impure_with_llvm_memory_clobber_and_a_result() -> None:
    text = generate("red.global.add.u32", dialect="triton")
    assert "constraints='=r,l,r,~{memory}'" in text and "is_pure=False" in text
    assert "mov.u32 $0, 0;" in text


def test_triton_splices_immediates_and_renumbers_the_operands() -> None:
    # the ordinal between the address and the value (0..4, the lowest spelled in): the value
    # becomes $2
    text = generate("tensormap.replace.tile.box_dim.b1024.b32", dialect="triton")
    assert "tensormap.replace.tile.box_dim.b1024.b32 [$1], 0, $2;" in text
    assert "constraints='=r,l,r,~{memory}'" in text and "args=[addr, a]" in text


def test_triton_refuses_a_shared_address() -> None:
    with pytest.raises(NotExpressible, match="shared"):
        generate("cp.async.ca.shared.global", dialect="triton")


# ----------------------------------------------------------------------------- editor


def test_continuations_follow_the_words_written() -> None:
    words = {c.word for c in continuations("cp", ("async",))}
    assert {"ca", "cg", "bulk", "commit_group", "wait_group"} <= words
    assert "shared" not in words  # .shared comes after the cache operator
    after = {c.word for c in continuations("cp", ("async", "ca"))}
    assert after == {"shared", "shared::cta"}


def test_completion_inside_an_asm_template_offers_modifiers() -> None:
    text = '__device__ void f() {\n  asm volatile("cp.async.ca.sh'
    items = complete(text, len(text))
    assert [i.label for i in items] == ["shared", "shared::cta"]
    assert items[0].start == len(text) - 2


def test_completion_offers_opcodes_at_an_instruction_start() -> None:
    text = '__device__ void f() {\n  asm("{\\n\\t mbar'
    assert [i.label for i in complete(text, len(text))] == ["mbarrier"]


@pytest.mark.parametrize(("cuda_version", "offered"), [
    (None, False), ((13, 0), False), ((13, 2), False), ((13, 3), True), ((13, 5), True)])
def test_completion_offers_what_the_toolkit_takes(cuda_version, offered) -> None:
    # fabric is new in PTX ISA 9.3 (ptxas 13.3: forms gated toolkit=13.3); unconfigured, the
    # verdicts (and completion) are for PTX204's default toolkit, 13.0
    text = '__device__ void f() {\n  asm("{\\n\\t fab'
    assert [i.label for i in complete(text, len(text), cuda_version)] == \
        (["fabric"] if offered else [])


def test_completion_offers_the_words_of_forms_the_toolkit_takes() -> None:
    # fabric.try_atom is new in ptxas 13.4; the other operations in 13.3
    text = '__device__ void f() {\n  asm("fabric.try_'
    assert [i.label for i in complete(text, len(text), (13, 3))] == \
        ["try_put", "try_get", "try_red", "try_pullred"]
    assert "try_atom" in [i.label for i in complete(text, len(text), (13, 5))]
    # mbarrier.init's .layout::v0/.layout::v1 forms are new in 13.3; the plain init is older
    before = {c.word for c in continuations("mbarrier", ("init",), (13, 0))}
    after = {c.word for c in continuations("mbarrier", ("init",), (13, 3))}
    assert after - before == {"layout::v0", "layout::v1"}
    assert {"shared", "shared::cta", "b64"} & before


def test_no_completion_in_an_ordinary_string_or_an_operand() -> None:
    text = 'int f() {\n  puts("ld.'
    assert template_prefix(text, len(text)) is None
    text = '__device__ void f() {\n  asm("add.u32 %0, %1.'
    assert complete(text, len(text)) == []


def test_snippet_outside_a_string_inserts_the_derived_statement() -> None:
    text = "__device__ void f() {\n  cp.async.ca.shared.global"
    [item] = complete(text, len(text))
    assert item.kind == "snippet" and "${1:dst}" in item.insert
    assert "__cvta_generic_to_shared" in item.insert


def test_hover_line_shows_the_derived_constraints() -> None:
    line = derived_constraints("add.u32")
    assert line is not None and '`"=r"`' in line and "pure" in line
    assert derived_constraints("add") is None


def test_carry_out_is_read_back_into_a_register_in_the_same_statement() -> None:
    # the carry flag does not survive between asm statements (PTX107)
    derived = derive(select("add.cc.u32"))
    assert derived.lines == ("add.cc.u32 %0, %2, %3;", "addc.u32 %1, 0, 0;")
    assert [p.name for p in derived.params if p.kind == "out"] == ["d", "carry"]


def test_carry_in_is_set_from_a_value_before_the_reader() -> None:
    derived = derive(select("madc.hi.cc.u64"))
    assert derived.lines[:2] == (".reg .b32 k0;", "add.cc.u32 k0, %5, 0xffffffff;")
    assert derived.constraints == ("=l", "=r", "l", "l", "l", "r")


def test_strict_form_takes_a_byte_through_a_b8_register() -> None:
    derived = derive(select("st.async.release.gpu.b8"))
    assert derived.lines == (".reg .b8 c0;", "cvt.u8.u16 c0, %1;",
                             "st.async.release.gpu.b8 [%0], c0;")
