"""The truth value the Python front end gives a condition (``Values.truth``): what Python
computes where the operands are knowable literals (through names bound once), else unknown."""

from __future__ import annotations

import pytest

from ptxlint.frontends.python.frontend import parse_python
from ptxlint.frontends.python.values import Values


def _truth(condition: str) -> bool | None:
    text = f"EMPTY = ''\nNAME = 'max'\nFLAG = False\nN = 3\nNOTHING = None\nx = ({condition})\n"
    parsed = parse_python(text)
    values = Values(parsed)
    assignment = parsed.tree.root_node.named_children[-1].named_children[0]
    return values.truth(assignment.child_by_field_name("right"))


@pytest.mark.parametrize(
    ("condition", "expected"),
    [
        ("'l,r'", True), ("EMPTY", False), ("NAME", True), ("FLAG", False), ("N", True),
        ("0", False), ("NOTHING", False), ("not EMPTY", True), ("not NAME", False),
        ("NAME == 'max'", True), ("NAME != 'max'", False), ("NAME == 'min'", False),
        ("N == 3", True), ("FLAG == 0", True), ("NAME == 3", False),
        ("NOTHING is None", True), ("NAME is None", False), ("NAME is not None", True),
        ("EMPTY == NOTHING", False), ("(NAME) == 'max'", True),
        # unknowable: an unbound name, an f-string with an unknown field, identity of two
        # values, a chain, an ordering
        ("unknown", None), ("f'{unknown}'", None), ("f'x{unknown}'", True),
        ("NAME is 'max'", None), ("0 < N < 5", None), ("N > 2", None),
        ("unknown == 'max'", None),
    ],
)
def test_truth_is_pythons_where_the_operands_are_known(condition: str, expected: bool | None
                                                       ) -> None:
    assert _truth(condition) is expected
