"""The address bases of a template (which operand is the base of which access: PTX301's plan,
and PTX004's shared-pointer root) follow register copies only where an address names a
register, and read each address's words once: the bases are the ones that follow them always and
walk every address in full."""

from __future__ import annotations

from ptxlint.model import PtxTemplate
from ptxlint.ptx import address_bases as bases
from ptxlint.ptx.parser import parse_template
from ptxlint.ptx.spaces import address_uses
from tests.conftest import rule_fixture_statements


def _followed_always(ptx: PtxTemplate) -> tuple[object, ...]:
    uses_of = [address_uses(i) for i in ptx.instructions]
    origins = bases._register_origins(ptx, uses_of)
    converted = bases._converted_in_template(ptx)
    plan = []
    for use in (u for found in uses_of for u in found):
        # every word of the address, walked in full (the plan reads them through ``_leaves``)
        found = bases._address_operand(list(bases.leaves(use.operand)), origins)
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
        plan = bases.address_bases(ptx)
        assert plan == _followed_always(ptx)
        copies += any(where.kind == "register" for _, _, where in plan)
    assert copies >= 2  # the register copies above are found through the gate
