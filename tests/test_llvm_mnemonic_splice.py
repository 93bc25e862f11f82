"""An LLVM operand reference spliced into a mnemonic (``st.global.$2``, ``fence.${0}.gpu``):
LLVM substitutes ``$N`` as text wherever it stands, so the instruction's spelling is partly
unknown, as with extended asm's ``%N`` there. No grammar rule judges the spliced word, and the
effects are what every spelling shares (``ptxlint.ptx.hole_effects``)."""

from __future__ import annotations

import pytest
from conftest import lint_text

from ptxlint.analysis.effects import instruction_effects
from ptxlint.ptx.parser import parse_template


def _triton(asm: str, pure: bool = False) -> str:
    return (
        "import triton.language as tl\n"
        "\n"
        "\n"
        "def kernel(x, p):\n"
        "    return tl.inline_asm_elementwise(\n"
        f"        {asm!r},\n"
        "        '=r,l,r,n', [p, x, 4], dtype=tl.int32,\n"
        f"        is_pure={pure}, pack=1)\n"
    )


def _cute(asm: str) -> str:
    return (
        "from cutlass._mlir.dialects import llvm\n"
        "\n"
        "\n"
        "def alloc(ptr, n, i32):\n"
        f"    llvm.inline_asm(None, [ptr, n], {asm!r}, 'r,r,n', has_side_effects=True)\n"
    )


@pytest.mark.parametrize("asm", [
    "st.global.$3 [$1], $2;",
    "st.global.${3} [$1], $2;",
    "st.global.b${3} [$1], $2;",
])
def test_triton_splice_in_mnemonic_is_not_an_unknown_modifier(asm: str) -> None:
    assert lint_text(_triton(asm), path="k.py", select=("PTX204",)) == []


def test_cute_splice_in_mnemonic_is_not_an_unknown_modifier() -> None:
    asm = "tcgen05.alloc.cta_group::$2.sync.aligned.shared::cta.b32 [$0], $1;"
    assert lint_text(_cute(asm), path="k.py", select=("PTX204",)) == []


def test_a_literal_dollar_is_no_splice() -> None:
    # `$$` is one `$` in the PTX ptxas reads: `.$3` is no modifier of st
    found = lint_text(_triton("st.global.$$3 [$1], $2;"), path="k.py", select=("PTX204",))
    assert [f.rule for f in found] == ["PTX204"]


def test_a_store_with_a_spliced_type_still_stores() -> None:
    (store,) = parse_template("st.global.$3 [$1], $2;", False, syntax="llvm").instructions
    effects = instruction_effects(store)
    assert effects is not None and effects.memory == "write"
    found = lint_text(_triton("st.global.$3 [$1], $2;", pure=True), path="k.py",
                      select=("PTX505",))
    assert [f.rule for f in found] == ["PTX505"]


@pytest.mark.parametrize(("llvm", "extended"), [
    ("st.global.$2 [$1], $0;", "st.global.%2 [%1], %0;"),
    ("st.global.${2:x} [$1], $0;", "st.global.%2 [%1], %0;"),
    ("fence.${0}.gpu;", "fence.%0.gpu;"),
    ("st.$3.global.b32 [$1], $0;", "st.%3.global.b32 [%1], %0;"),
    ("mbarrier.arrive.$1.shared.b64 $0, [$2];", "mbarrier.arrive.%1.shared.b64 %0, [%2];"),
])
def test_effects_match_the_extended_asm_splice(llvm: str, extended: str) -> None:
    (a,) = parse_template(llvm, False, syntax="llvm").instructions
    (b,) = parse_template(extended, True).instructions
    assert a.opaque and b.opaque
    assert instruction_effects(a) == instruction_effects(b)


def test_mnemonic_keeps_the_written_reference() -> None:
    (instruction,) = parse_template("st.global.${2} [$1], $0;", False,
                                    syntax="llvm").instructions
    assert instruction.mnemonic == "st.global.${2}"
