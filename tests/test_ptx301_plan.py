"""PTX301's plan of a template (which operand is the base of which access) follows register
copies only where an address names a register, and reads each address's words once: the plan is
the one that follows them always and walks every address in full."""

from __future__ import annotations

import importlib

from ptxlint.model import PtxTemplate
from ptxlint.ptx.parser import parse_template
from ptxlint.ptx.spaces import address_uses
from tests.conftest import rule_fixture_statements

ptx301 = importlib.import_module("ptxlint_rules.ptx301_memory_space_mismatch")


def _followed_always(ptx: PtxTemplate) -> tuple[object, ...]:
    uses_of = [address_uses(i) for i in ptx.instructions]
    origins = ptx301._register_origins(ptx, uses_of)
    converted = ptx301._converted_in_template(ptx)
    plan = []
    for use in (u for found in uses_of for u in found):
        # every word of the address, walked in full (the plan reads them through ``_leaves``)
        found = ptx301._address_operand(list(ptx301._words(use.operand)), origins)
        if found is not None and found[0] not in converted:
            plan.append((use, found[0], found[1]))
    return tuple(plan)


def test_the_plan_follows_register_copies_wherever_an_address_names_a_register() -> None:
    templates = [s.ptx for s in rule_fixture_statements() if s.extended]
    templates += [
        parse_template("{ .reg .u64 a; mov.b64 a, %1; ld.shared.f32 %0, [a]; }", True),
        parse_template("{ .reg .u64 a; add.u64 a, %1, 16; st.shared.u32 [a+4], %0; }", True),
        parse_template("ld.shared.u32 %0, [%1]; st.global.u32 [%2], %0;", True),
    ]
    copies = 0
    for ptx in templates:
        plan = ptx301._plan(ptx)
        assert plan == _followed_always(ptx)
        copies += any(where.kind == "register" for _, _, where in plan)
    assert copies >= 2  # the register copies above are found through the gate
