"""The vector qualifier out of its place (PTX204, a warning). ptxas 13.0 reads the modifiers of
an instruction in any order, but warns "Vector Type not specified properly" where the word after
``.v2``/``.v4``/``.v8`` is not the type (``ld.global.u64.v2``, ``ld.global.v2.cs.u64``,
``atom.global.v4.add.f32``), and builds the same code; every other order it takes silently
(``ld.u64.global``, ``ld.v2.u64.global``, ``red.global.v4.f32.add``). The fix writes the
modifiers in the ISA's order, each checked with ptxas 13.0 (sm_90a): it assembles without the
warning."""

from __future__ import annotations

import pytest

from ptxlint.model import PtxOperand
from ptxlint.ptx import grammar
from ptxlint.ptx.forms import VECTOR_WORDS, forms
from ptxlint.ptx.isa_table import FAMILIES
from ptxlint.ptx.parser import parse_template
from tests.conftest import lint_text


def _unknown(operand: PtxOperand) -> grammar.OperandClass:
    return grammar.OperandClass("unknown")


def _order_issues(text: str) -> list[grammar.Issue]:
    [instruction] = parse_template(text, True).instructions
    return [i for i in grammar.check(instruction, _unknown).issues if i.kind == "order"]


# (as written, the ISA's order): ptxas 13.0 warns on the first, not on the second
WARNED = [
    ("ld.global.u64.v2 {%0, %1}, [%2];", "ld.global.v2.u64"),
    ("ld.u64.v2.global {%0, %1}, [%2];", "ld.global.v2.u64"),
    ("ld.v2.global.u64 {%0, %1}, [%2];", "ld.global.v2.u64"),
    ("ld.global.v2.cs.u64 {%0, %1}, [%2];", "ld.global.cs.v2.u64"),
    ("ld.global.nc.L1::no_allocate.u32.v4 {%0, %1, %2, %3}, [%4];",
     "ld.global.nc.L1::no_allocate.v4.u32"),
    ("ld.global.L2::cache_hint.u32.v2 {%0, %1}, [%2], %3;", "ld.global.L2::cache_hint.v2.u32"),
    ("st.shared.b32.v2 [%0], {%1, %2};", "st.shared.v2.b32"),
    ("st.wb.global.u32.v2 [%0], {%1, %2};", "st.global.wb.v2.u32"),
    ("atom.global.v4.add.f32 {%0, %1, %2, %3}, [%4], {%5, %6, %7, %8};",
     "atom.global.add.v4.f32"),
    ("red.global.add.f32.v4 [%0], {%1, %2, %3, %4};", "red.global.add.v4.f32"),
    ("mov.u32.v2 {%0, %1}, {%2, %3};", "mov.v2.u32"),
    ("ldu.global.u32.v2 {%0, %1}, [%2];", "ldu.global.v2.u32"),
    ("multimem.st.relaxed.sys.global.f32.v4 [%0], {%1, %2, %3, %4};",
     "multimem.st.relaxed.sys.global.v4.f32"),
    # tex and tld4: two types, read by position (result, coordinates); the vector goes before
    # the first
    ("tex.1d.s32.f32.v4 {%0, %1, %2, %3}, [%4, {%5}];", "tex.1d.v4.s32.f32"),
    ("tex.v4.2d.f32.f32 {%0, %1, %2, %3}, [%4, {%5, %6}];", "tex.2d.v4.f32.f32"),
    ("tex.2d.f16x2.f32.v2 {%0, %1}, [%4, {%5, %6}];", "tex.2d.v2.f16x2.f32"),
    ("tld4.r.2d.f32.f32.v4 {%0, %1, %2, %3}, [%4, {%5, %6}];", "tld4.r.2d.v4.f32.f32"),
]
SILENT = [
    "ld.global.v2.u64 {%0, %1}, [%2];",
    "ld.u64.global %0, [%1];",
    "ld.v2.u64.global {%0, %1}, [%2];",
    "ld.nc.global.v4.u32 {%0, %1, %2, %3}, [%4];",
    "ld.global.v2.u32.L1::evict_last {%0, %1}, [%2];",
    "red.global.v4.f32.add [%0], {%1, %2, %3, %4};",
    "ld.global.u32 %0, [%1];",
    "tex.2d.f32.v4.f32 {%0, %1, %2, %3}, [%4, {%5, %6}];",  # a type after the vector
    "tex.v4.f32.f32.2d {%0, %1, %2, %3}, [%4, {%5, %6}];",
]


@pytest.mark.parametrize(("text", "isa"), WARNED)
def test_a_vector_not_right_before_the_type_is_ptxas_warning(text: str, isa: str) -> None:
    [issue] = _order_issues(text)
    assert issue.severity == "warning"
    assert '"Vector Type not specified properly"' in issue.message
    assert f"'{isa}'" in issue.message
    opcode, *modifiers = text.split(" ")[0].split(".")
    assert grammar.canonical_order(opcode, tuple(modifiers)) == tuple(isa.split(".")[1:])


@pytest.mark.parametrize("text", SILENT)
def test_orders_ptxas_takes_silently_are_not_flagged(text: str) -> None:
    assert _order_issues(text) == []


def test_every_vector_form_places_the_type_right_after_the_vector() -> None:
    """The fact the check reads: in every form of the grammar with a vector qualifier, the next
    slot is the type's, and the form's slot order spells no warning; the vector moved to the end
    is one, whose ISA order is the form's (where the order is one)."""
    seen = 0
    for opcode in sorted(FAMILIES):
        for form in forms(opcode):
            k = form.vector_slot
            if k is None:
                continue
            seen += 1
            assert all(v.word not in VECTOR_WORDS for s in form.slots[k + 1:] for v in s.values)
            in_order = tuple(s.values[0].word for s in form.slots if not s.optional)
            vector, typed = form.slots[k].values[0].word, form.slots[k + 1].values[0].word
            assert {v.word for v in form.slots[k + 1].values} <= grammar.POSITIONAL_TYPES \
                or typed.endswith(("x2", "x4")), form.spec
            moved = tuple(w for w in in_order if w != vector) + (vector,)
            canonical = grammar.canonical_order(opcode, moved)
            if canonical is not None:
                assert canonical.index(vector) + 1 == canonical.index(typed), form.spec
    assert seen > 300


def test_ptx204_warns_once_with_the_isa_order_as_a_safe_fix() -> None:
    text = ('__device__ void f(unsigned long long* a, const void* p) {\n'
            '  asm volatile("ld.global.u64.v2 {%0, %1}, [%2];"\n'
            '               : "=l"(a[0]), "=l"(a[1]) : "l"(p));\n'
            '  asm volatile("ld.global.v2.u64 {%0, %1}, [%2];"\n'
            '               : "=l"(a[0]), "=l"(a[1]) : "l"(p));\n'
            '  asm volatile("ld.u64.global %0, [%1];" : "=l"(a[0]) : "l"(p));\n'
            '}\n')
    [finding] = lint_text(text, select=("PTX204",))
    assert finding.severity.value == "warning"
    assert text[finding.span.start:finding.span.end] == ".v2"
    assert finding.fix is not None and finding.fix.safe
    [edit] = finding.fix.edits
    assert text[edit.span.start:edit.span.end] == "ld.global.u64.v2"
    assert edit.new_text == "ld.global.v2.u64"


def test_a_rejected_spelling_is_one_error_and_no_warning() -> None:
    """ptxas 13.0 rejects two vector qualifiers ("Multiple vector modifiers specified"), and
    warns as well where the second follows the type: the error is the one finding."""
    text = ('__device__ void f(unsigned* a, const void* p) {\n'
            '  asm volatile("ld.global.v2.u32.v2 {%0, %1}, [%2];"\n'
            '               : "=r"(a[0]), "=r"(a[1]) : "l"(p));\n'
            '}\n')
    [finding] = lint_text(text, select=("PTX204",))
    assert finding.severity.value == "error"


def test_a_template_with_a_hole_among_the_operands_is_judged_by_its_spelling() -> None:
    """A Triton f-string whose field is in the address: the mnemonic is written, so its order
    is known though its operands are not."""
    text = ('import triton\nimport triton.language as tl\n\n\n@triton.jit\n'
            'def k(p, a):\n'
            '    return tl.inline_asm_elementwise(\n'
            '        f"ld.global.u32.v2 {{$0, $1}}, [$2+{a}];",\n'
            '        "=r,=r,l", [p], dtype=(tl.int32, tl.int32), is_pure=False, pack=1)\n')
    [finding] = lint_text(text, "k.py", select=("PTX204",))
    assert '"Vector Type not specified properly"' in finding.message
    assert finding.fix is not None
    [edit] = finding.fix.edits
    assert edit.new_text == "ld.global.v2.u32"
