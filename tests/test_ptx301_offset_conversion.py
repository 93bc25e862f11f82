"""A generic pointer in "l" that a template reads as a .shared address and as a 32-bit value:
one defect (the missing conversion to the 32-bit shared-window offset), one PTX301 error."""

from __future__ import annotations

import pytest

from ptxlint.fix import apply_edits
from ptxlint.model import Finding
from tests.conftest import lint_text

_SELECT = ("PTX206", "PTX301")


def _kernel(template: str, operand: str = '"l"(out)') -> str:
    return (
        "#include <cstdint>\n"
        "__global__ void k(unsigned a) {\n"
        "  __shared__ unsigned out[64];\n"
        f'  asm volatile("{template}" :: {operand}, "r"(a) : "memory");\n'
        "}\n"
    )


def _found(text: str) -> list[Finding]:
    return lint_text(text, select=_SELECT)


@pytest.mark.parametrize(
    ("template", "reader"),
    [
        pytest.param("{.reg .u32 t; add.u32 t, %0, 4; st.shared.u32 [t], %1;}", "add.u32",
                     id="through-a-register-copy"),
        pytest.param("{.reg .u32 t; mad.lo.u32 t, %1, 4, %0; st.shared.u32 [%0], %1;"
                     " st.shared.u32 [t], %1;}", "mad.lo.u32", id="directly-and-in-arithmetic"),
    ],
)
def test_the_missing_offset_conversion_is_one_error_whose_fix_mends_both(
    template: str, reader: str
) -> None:
    text = _kernel(template)
    found = _found(text)
    assert [f.rule for f in found] == ["PTX301"], [f.message for f in found]
    finding = found[0]
    assert finding.severity.value == "error"
    assert f"'{reader}' reads it too" in finding.message
    assert "Arguments mismatch" in finding.message
    assert finding.fix is not None
    fixed, applied = apply_edits(text, [finding.fix])
    assert applied == 1
    assert "static_cast<unsigned>(__cvta_generic_to_shared(out))" in fixed
    assert _found(fixed) == []


def test_a_64_bit_read_keeps_the_pointer_width_and_the_warning() -> None:
    # add.u64 takes the 64-bit register: no ptxas error, the generic address alone
    found = _found(_kernel("{.reg .u64 t; add.u64 t, %0, 4; st.shared.u32 [t], %1;}"))
    assert [(f.rule, f.severity.value) for f in found] == [("PTX301", "warning")]


def test_a_pointer_also_used_as_a_global_address_keeps_both_findings() -> None:
    # converted, the value would break the global store: the 32-bit place is its own defect
    found = _found(_kernel(
        "{.reg .u32 t; add.u32 t, %0, 4; st.shared.u32 [t], %1; st.global.u32 [%0], %1;}"))
    assert "PTX206" in [f.rule for f in found]


def test_an_integer_in_l_is_no_generic_pointer_and_keeps_the_type_finding() -> None:
    found = _found(_kernel(
        "{.reg .u32 t; add.u32 t, %0, 4; st.shared.u32 [t], %1;}",
        '"l"(__cvta_generic_to_shared(out))'))
    assert [f.rule for f in found] == ["PTX206"]


def test_verify_confirms_the_error_by_the_place_ptxas_refuses() -> None:
    from ptxlint.verify.recipes import PTX, recipe_for

    finding = _found(_kernel("{.reg .u32 t; add.u32 t, %0, 4; st.shared.u32 [t], %1;}"))[0]
    recipe = recipe_for("PTX301", finding)
    assert recipe.probes == (PTX,) and not recipe.own_lines
    assert recipe.agrees is not None
    assert recipe.agrees.search("ptxas: Arguments mismatch for instruction 'add'")
