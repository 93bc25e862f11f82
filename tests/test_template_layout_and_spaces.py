"""The helpers behind PTX201/202/205/301: piece ranges, brace wrapping, address state spaces."""

from __future__ import annotations

from ptxlint.engine import extract_statements
from ptxlint.model import AsmStatement, SourceFile
from ptxlint.ptx.address_values import is_shared_offset, strip_casts
from ptxlint.ptx.layout import piece_texts, wrap_in_braces
from ptxlint.ptx.spaces import address_uses


def _statement(code: str) -> AsmStatement:
    text = f"__device__ void f(unsigned* p, unsigned x) {{\n{code}\n}}\n"
    (statement,) = extract_statements(SourceFile("t.cu", text)).statements
    return statement


def _apply(statement: AsmStatement) -> str:
    edits = wrap_in_braces(statement)
    assert edits is not None
    text = statement.source.text
    for edit in sorted(edits, key=lambda e: e.span.start, reverse=True):
        text = text[: edit.span.start] + edit.new_text + text[edit.span.end :]
    return text


def test_piece_ranges_cover_each_piece_text() -> None:
    st = _statement('asm("mov.u32 %0, 1" "add.u32 %0, %0, 1;" : "=r"(x));')
    ranges = [st.template.text[p.start : p.end] for p in piece_texts(st.template)]
    assert ranges == ["mov.u32 %0, 1", "add.u32 %0, %0, 1;"]


def test_wrap_uses_the_templates_line_breaks() -> None:
    st = _statement('asm(".reg .b32 t;\\n\\t" "mov.u32 t, %0;" :: "r"(x));')
    assert 'asm("{\\n\\t.reg .b32 t;\\n\\t" "mov.u32 t, %0;\\n}" ' in _apply(st)


def test_wrap_single_line_and_raw_strings() -> None:
    st = _statement('asm(".reg .b32 t; mov.u32 t, %0;" :: "r"(x));')
    assert 'asm("{ .reg .b32 t; mov.u32 t, %0; }"' in _apply(st)
    st = _statement('asm(R"x(\n  .reg .b32 t;\n  mov.u32 t, %0;\n)x" :: "r"(x));')
    assert 'R"x({\n  .reg .b32 t;\n  mov.u32 t, %0;\n})x"' in _apply(st)


def test_wrap_needs_literals_at_both_ends() -> None:
    code = '#define TAIL "mov.u32 t, %0;"\n'
    text = code + '__device__ void f(unsigned x) { asm(".reg .b32 t;" TAIL :: "r"(x)); }\n'
    (st,) = extract_statements(SourceFile("t.cu", text)).statements
    assert wrap_in_braces(st) is None


def test_copy_spaces_are_destination_then_source_then_the_destinations_mbarrier() -> None:
    st = _statement(
        'asm("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes'
        ' [%0], [%1], 16, [%2];" :: "r"(x), "l"(p), "r"(x));'
    )
    (instruction,) = st.ptx.instructions
    # the mbarrier is in the destination's window: the CTA the data lands in, which a copy
    # into the cluster's window may name by a mapa result
    assert [u.space for u in address_uses(instruction)] == [
        "shared::cluster", "global", "shared::cluster"]


def test_tensor_copy_leaves_the_tensor_map_side_unknown() -> None:
    st = _statement(
        'asm("cp.async.bulk.tensor.1d.shared::cluster.global.tile.mbarrier::complete_tx::bytes'
        ' [%0], [%1, {%2}], [%3];" :: "r"(x), "l"(p), "r"(x), "r"(x));'
    )
    (instruction,) = st.ptx.instructions
    assert [u.space for u in address_uses(instruction)] == ["shared::cluster", "shared::cluster"]


def test_no_state_space_is_generic_only_for_memory_instructions() -> None:
    st = _statement(
        'asm("ld.u32 %0, [%1]; ldmatrix.sync.aligned.m8n8.x1.b16 {%0}, [%1];" : "=r"(x) : "l"(p));'
    )
    spaces = [u.space for i in st.ptx.instructions for u in address_uses(i)]
    assert spaces == ["generic", "generic"]


def test_shared_offset_through_casts_and_offsets() -> None:
    assert strip_casts("static_cast<uint32_t>((unsigned)(x))") == "x"
    st = _statement(
        'asm("ld.global.u32 %0, [%1];" : "=r"(x) : "r"((uint32_t)__cvta_generic_to_shared(p) + 4));'
    )
    assert is_shared_offset(st.operands[1])
    st = _statement(
        'asm("ld.global.u32 %0, [%1];" : "=r"(x) : "r"(g(__cvta_generic_to_shared(p))));'
    )
    assert not is_shared_offset(st.operands[1])


def test_a_copy_into_the_ctas_own_window_has_its_mbarrier_there() -> None:
    st = _statement(
        'asm("cp.async.bulk.shared::cta.global.mbarrier::complete_tx::bytes'
        ' [%0], [%1], 16, [%2];" :: "r"(x), "l"(p), "r"(x));'
    )
    (instruction,) = st.ptx.instructions
    assert [u.space for u in address_uses(instruction)] == ["shared::cta", "global", "shared::cta"]
