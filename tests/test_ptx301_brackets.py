"""PTX301 passes over a template without a bracket at once: the PTX parser makes an address
operand only of one, so such a template has no address use to plan."""

from __future__ import annotations

import pytest

from ptxlint.ptx.address_bases import address_bases
from ptxlint.ptx.parser import parse_template
from tests.conftest import lint_text, rule_fixture_statements


def test_a_fixture_template_without_a_bracket_has_no_address_use() -> None:
    statements = rule_fixture_statements()
    without = [s for s in statements if "[" not in s.template.text]
    assert without and len(without) < len(statements)
    assert any(address_bases(s.ptx) for s in statements if "[" in s.template.text)
    for s in without:
        assert not any(o.kind == "address" for i in s.ptx.instructions for o in i.operands)
        assert address_bases(s.ptx) == ()


@pytest.mark.parametrize("text", [
    "ld.shared.u32 %0, [%1];",
    "st.global.v2.f32 [%0+8], {%1, %2};",
    "cp.async.ca.shared.global [%0], [%1], 16;",
    "@p ld.u32 %0, [%1];",
])
def test_an_address_operand_is_made_only_of_a_bracket(text: str) -> None:
    ptx = parse_template(text, True)
    assert any(o.kind == "address" for i in ptx.instructions for o in i.operands)
    unbracketed = parse_template(text.replace("[", "").replace("]", ""), True)
    assert not any(o.kind == "address" for i in unbracketed.instructions for o in i.operands)


def test_a_shared_address_in_a_register_operand_is_still_reported() -> None:
    text = (
        "__device__ void f(float* p, float v) {\n"
        '  asm volatile("st.shared.f32 [%0], %1;" :: "l"(p), "f"(v));\n'
        "}\n"
    )
    assert [f.rule for f in lint_text(text, select=("PTX301",))] == ["PTX301"]
